import {
  type Address,
  address,
  createKeyPairFromPrivateKeyBytes,
  createKeyPairSignerFromBytes,
  getBase58Decoder,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  lamports,
  type Signature,
} from '@solana/kit'
import {
  AccountState,
  findAssociatedTokenPda,
  getMintEncoder,
  getMintSize,
  getTokenDecoder,
  getTokenEncoder,
  getTokenSize,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import { FailedTransactionMetadata, LiteSVM } from 'litesvm'
import { SOLANA_DEVNET } from '../../../core/payments/networks.ts'
import { type SolanaRpc, SolanaRpcError, type SolanaSignatureStatus } from '../../../core/payments/svm/rpc.ts'

/** A Solana keypair whose 64-byte secret can be handed out (as SOLANA_FEE_PAYER_KEY or a key file). */
export interface TestSolanaKey {
  signer: KeyPairSigner
  address: Address
  /** seed (32 bytes) then public key (32 bytes), as solana-keygen writes it. */
  secretKey: Uint8Array
  /** Base58 of the 64-byte secret, as wallets export it. */
  base58: string
}

export async function generateTestSolanaKey(): Promise<TestSolanaKey> {
  const seed = crypto.getRandomValues(new Uint8Array(32))
  const pair = await createKeyPairFromPrivateKeyBytes(seed, true)
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey))
  const secretKey = new Uint8Array(64)
  secretKey.set(seed, 0)
  secretKey.set(publicKey, 32)
  const signer = await createKeyPairSignerFromBytes(secretKey)
  return { signer, address: signer.address, secretKey, base58: getBase58Decoder().decode(secretKey) }
}

/** Transaction error names as JSON-RPC writes them (litesvm hands out the numeric enum). */
const FIELDLESS_ERRORS: Readonly<Record<number, string>> = {
  2: 'AccountNotFound',
  4: 'InsufficientFundsForFee',
  6: 'AlreadyProcessed',
  7: 'BlockhashNotFound',
  9: 'MissingSignatureForFee',
  11: 'SignatureFailure',
  13: 'SanitizeFailure',
}

/** The JSON-RPC `err` value of a failed litesvm transaction (`"BlockhashNotFound"`, `{ InstructionError: [2, { Custom: 1 }] }`). */
export function rpcErrorOf(failed: FailedTransactionMetadata): unknown {
  const err = failed.err() as unknown
  if (typeof err === 'number') return FIELDLESS_ERRORS[err] ?? `TransactionError${err}`
  if (
    err &&
    typeof err === 'object' &&
    'index' in err &&
    typeof (err as { err?: unknown }).err === 'function'
  ) {
    const inner = (err as { index: number; err(): unknown }).err()
    const innerJson =
      inner && typeof inner === 'object' && 'code' in inner
        ? { Custom: (inner as { code: number }).code }
        : `InstructionError${String(inner)}`
    return { InstructionError: [(err as { index: number }).index, innerJson] }
  }
  return String(err)
}

/** The transaction error name of a failed litesvm transaction, as `SolanaRpc` reports it. */
export function errorNameOf(failed: FailedTransactionMetadata): string {
  const err = rpcErrorOf(failed)
  if (typeof err === 'string') return err
  const inner = (err as { InstructionError: [number, unknown] }).InstructionError[1]
  return inner && typeof inner === 'object' && 'Custom' in inner
    ? `custom:${(inner as { Custom: number }).Custom}`
    : String(inner)
}

/**
 * Simulates a base64 transaction without verifying signatures (a missing fee payer signature is
 * fine), as `simulateTransaction` with `sigVerify: false` does: the error name, or null.
 */
export function simulateUnsigned(svm: LiteSVM, wire: string): string | null {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire))
  svm.withSigverify(false)
  try {
    const result = svm.simulateTransaction(transaction as never)
    return result instanceof FailedTransactionMetadata ? errorNameOf(result) : null
  } finally {
    svm.withSigverify(true)
  }
}

/**
 * A Solana cluster in-process (litesvm, real SPL Token program) with a USDC-like mint (6
 * decimals), the merchant's payTo and its token account, the service's fee payer (with SOL) and
 * funded payers. Blockhash validity follows litesvm: only the latest blockhash is valid, and
 * `expireBlockhash()` moves it on.
 */
export interface SolanaTestChain {
  svm: LiteSVM
  network: string
  mint: Address
  payTo: TestSolanaKey
  feePayer: TestSolanaKey
  payers: TestSolanaKey[]
  fundedAmount: bigint
  /** Token balance of an owner's associated token account (0 when it has none). */
  balanceOf(owner: string): Promise<bigint>
  /** SOL of an account, in lamports. */
  lamportsOf(account: string): bigint
  /** Gives `owner` a token account holding `amount` of `mint` (default: the USDC-like mint). */
  fundTokens(owner: Address, amount: bigint, mint?: Address): Promise<Address>
  /** The port adapter that executes on litesvm directly. */
  rpc: SolanaRpc
  /** Every transaction sent through `rpc` (base64), in order. */
  sent: string[]
}

export async function startSolanaTestChain(
  options: { payerCount?: number; fundedAmount?: bigint } = {},
): Promise<SolanaTestChain> {
  const svm = new LiteSVM()
  const fundedAmount = options.fundedAmount ?? 10_000_000n
  const mintKey = await generateTestSolanaKey()
  const mint = mintKey.address
  const sent: string[] = []

  const setMint = (address: Address, decimals: number) => {
    const size = getMintSize()
    svm.setAccount({
      address,
      data: new Uint8Array(
        getMintEncoder().encode({
          mintAuthority: mintKey.address,
          supply: 1_000_000_000_000n,
          decimals,
          isInitialized: true,
          freezeAuthority: null,
        }),
      ),
      executable: false,
      lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(size))),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      space: BigInt(size),
    } as never)
  }
  setMint(mint, 6)

  async function fundTokens(owner: Address, amount: bigint, tokenMint: Address = mint): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({
      mint: tokenMint,
      owner,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    const size = getTokenSize()
    svm.setAccount({
      address: ata,
      data: new Uint8Array(
        getTokenEncoder().encode({
          mint: tokenMint,
          owner,
          amount,
          delegate: null,
          state: AccountState.Initialized,
          isNative: null,
          delegatedAmount: 0n,
          closeAuthority: null,
        }),
      ),
      executable: false,
      lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(size))),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      space: BigInt(size),
    } as never)
    return ata
  }

  const payTo = await generateTestSolanaKey()
  await fundTokens(payTo.address, 0n)
  const feePayer = await generateTestSolanaKey()
  svm.airdrop(feePayer.address, lamports(10_000_000_000n))
  const payers: TestSolanaKey[] = []
  for (let i = 0; i < (options.payerCount ?? 4); i++) {
    const payer = await generateTestSolanaKey()
    await fundTokens(payer.address, fundedAmount)
    payers.push(payer)
  }

  const rpc: SolanaRpc = {
    async isBlockhashValid(blockhash) {
      return blockhash === svm.latestBlockhash()
    },
    async sendTransaction(wire) {
      const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire))
      sent.push(wire)
      let result: ReturnType<LiteSVM['sendTransaction']>
      try {
        result = svm.sendTransaction(transaction as never)
      } catch (error) {
        throw new SolanaRpcError(
          'rejected',
          `Transaction is not fully signed: ${String(error)}`,
          'SignatureFailure',
        )
      }
      if (result instanceof FailedTransactionMetadata) {
        throw new SolanaRpcError(
          'rejected',
          `Transaction simulation failed: ${result.toString()}`,
          errorNameOf(result),
        )
      }
      return getBase58Decoder().decode(result.signature())
    },
    async simulateTransaction(wire) {
      return { err: simulateUnsigned(svm, wire) }
    },
    async signatureStatus(signature): Promise<SolanaSignatureStatus> {
      const found = svm.getTransaction(signature as Signature)
      if (!found) return { state: 'not_found' }
      if (found instanceof FailedTransactionMetadata)
        return { state: 'failed', error: JSON.stringify(rpcErrorOf(found)) }
      return { state: 'confirmed' }
    },
  }

  return {
    svm,
    network: SOLANA_DEVNET,
    mint,
    payTo,
    feePayer,
    payers,
    fundedAmount,
    fundTokens,
    async balanceOf(owner) {
      const [ata] = await findAssociatedTokenPda({
        mint,
        owner: address(owner),
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
      const account = svm.getAccount(ata)
      if (!account.exists) return 0n
      return getTokenDecoder().decode(account.data).amount
    },
    lamportsOf(account) {
      return BigInt(svm.getBalance(address(account)) ?? 0n)
    },
    rpc,
    sent,
  }
}
