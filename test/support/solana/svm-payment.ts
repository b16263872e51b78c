import {
  AccountRole,
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createNoopSigner,
  createTransactionMessage,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget'
import {
  findAssociatedTokenPda,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import { createPaymentConfig, type PaymentConfig, SOLANA_DEVNET } from '../../../core/payments/networks.ts'
import { MEMO_PROGRAM_ADDRESS } from '../../../core/payments/svm/verify.ts'
import type { SolanaTestChain } from './litesvm-chain.ts'

export interface SvmPaymentParts {
  payer: KeyPairSigner
  /** The fee payer the transaction names (the service's, or a swapped one). */
  feePayer: Address
  mint: Address
  /** Owner of the destination token account (payTo, or another account). */
  recipient: Address
  amount: bigint
  decimals?: number
  blockhash: string
  computeUnits?: number
  microLamports?: bigint
  /** Instructions after the memo (extra instruction tests). */
  extraInstructions?: Instruction[]
  /** Replaces the TransferChecked authority/source (fee-payer-as-source tests); default the payer. */
  source?: Address
  authority?: KeyPairSigner | Address
  /** Signers that sign besides the payer. */
  extraSigners?: KeyPairSigner[]
}

/**
 * Builds the transaction the exact SVM scheme expects (compute limit, compute price,
 * TransferChecked, memo), partially signed by the payer, with any part changed for hostile-payload
 * tests. Returns the base64 wire transaction.
 */
export async function buildSvmPaymentTransaction(parts: SvmPaymentParts): Promise<string> {
  const decimals = parts.decimals ?? 6
  const [source] = parts.source
    ? [parts.source]
    : await findAssociatedTokenPda({
        mint: parts.mint,
        owner: parts.payer.address,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
  const [destination] = await findAssociatedTokenPda({
    mint: parts.mint,
    owner: parts.recipient,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  })
  const authority = parts.authority ?? parts.payer
  // One signer instance per address, as kit requires.
  const feePayerSigner = createNoopSigner(parts.feePayer)
  const noop = (value: Address) => (value === parts.feePayer ? feePayerSigner : createNoopSigner(value))
  const transfer = getTransferCheckedInstruction({
    source,
    mint: parts.mint,
    destination,
    authority: typeof authority === 'string' ? noop(authority as Address) : authority,
    amount: parts.amount,
    decimals,
  })
  const memo: Instruction = {
    programAddress: MEMO_PROGRAM_ADDRESS as Address,
    data: new TextEncoder().encode(Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex')),
  }
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayerSigner, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getSetComputeUnitLimitInstruction({ units: parts.computeUnits ?? 20_000 }),
          getSetComputeUnitPriceInstruction({ microLamports: parts.microLamports ?? 1n }),
          transfer,
          memo,
          ...(parts.extraInstructions ?? []),
        ],
        m,
      ),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: parts.blockhash as Blockhash, lastValidBlockHeight: 1_000_000_000n },
        m,
      ),
  )
  const signed = await partiallySignTransactionMessageWithSigners(message)
  return getBase64EncodedWireTransaction(signed)
}

/** An x402 v2 payment payload (header form: base64 JSON) carrying a Solana transaction. */
export function svmPaymentHeader(
  accepted: Record<string, unknown>,
  transaction: string,
  resource = { url: 'http://localhost/v1/sanctions/screen', description: '', mimeType: 'application/json' },
): string {
  return Buffer.from(
    JSON.stringify({ x402Version: 2, resource, accepted, payload: { transaction } }),
    'utf8',
  ).toString('base64')
}

/**
 * Changes the TransferChecked amount inside a signed transaction without re-signing (a tampered
 * amount): finds the instruction data (discriminator 12, u64 LE amount, decimals) in the bytes.
 */
export function tamperAmount(transaction: string, from: bigint, to: bigint, decimals = 6): string {
  const bytes = new Uint8Array(getBase64Encoder().encode(transaction))
  const pattern = new Uint8Array(10)
  pattern[0] = 12
  new DataView(pattern.buffer).setBigUint64(1, from, true)
  pattern[9] = decimals
  const at = Buffer.from(bytes).indexOf(Buffer.from(pattern))
  if (at < 0) throw new Error('TransferChecked data not found')
  new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(at + 1, to, true)
  return getBase64Decoder().decode(bytes)
}

/**
 * A System program `Transfer` of lamports (instruction 2: u32 LE discriminator, u64 LE amount;
 * accounts: source as writable signer, destination writable), built by hand so the tests need no
 * System program client.
 */
export function systemTransferInstruction(
  source: KeyPairSigner,
  destination: Address,
  lamports: bigint,
): Instruction {
  const data = new Uint8Array(12)
  const view = new DataView(data.buffer)
  view.setUint32(0, 2, true)
  view.setBigUint64(4, lamports, true)
  return {
    programAddress: '11111111111111111111111111111111' as Address,
    accounts: [
      { address: source.address, role: AccountRole.WRITABLE_SIGNER, signer: source } as never,
      { address: destination, role: AccountRole.WRITABLE },
    ],
    data,
  }
}

/**
 * A payment on the litesvm test chain as the scheme expects it: from `payer` to the chain's payTo
 * in its mint, the chain's fee payer, the latest blockhash; `changes` replace any part (hostile
 * payloads).
 */
export function chainPaymentTransaction(
  chain: SolanaTestChain,
  payer: KeyPairSigner,
  amount: bigint,
  changes: Partial<SvmPaymentParts> = {},
): Promise<string> {
  return buildSvmPaymentTransaction({
    payer,
    feePayer: chain.feePayer.address,
    mint: chain.mint,
    recipient: chain.payTo.address,
    amount,
    blockhash: chain.svm.latestBlockhash(),
    ...changes,
  })
}

/** The payment config of a service paid in the test chain's mint on Solana devnet. */
export function chainPaymentConfig(chain: SolanaTestChain): PaymentConfig {
  return createPaymentConfig({
    networks: [SOLANA_DEVNET],
    solanaPayTo: chain.payTo.address,
    overrides: { [SOLANA_DEVNET]: { asset: chain.mint, feePayer: chain.feePayer.address } },
  })
}
