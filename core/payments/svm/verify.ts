import {
  type Address,
  type CompiledTransactionMessage,
  decompileTransactionMessage,
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  type SignatureBytes,
  type Transaction,
  verifySignature,
} from '@solana/kit'
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  parseSetComputeUnitLimitInstruction,
  parseSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget'
import {
  findAssociatedTokenPda,
  parseTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import type { NonceStore } from '../ledger/nonce-store.ts'
import type { PaymentConfig } from '../networks.ts'
import type { DecodedPayment } from '../payment-header.ts'
import type { PaymentRequirement } from '../requirements.ts'
import { reject, toCanonicalPayload, toStandardRequirement, type VerifyResult } from '../verify-result.ts'
import type { SolanaRpc } from './rpc.ts'

/** SPL Memo program: the client's random nonce (or the seller's memo) that makes each payment unique. */
export const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'
/** Lighthouse: wallet-injected assertions (Phantom, Solflare) that the scheme allows after the transfer. */
export const LIGHTHOUSE_PROGRAM_ADDRESS = 'L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95'
/** Scheme reference default (scheme_exact_svm.md §2.2.1): at most 400,000 compute units. */
export const MAX_COMPUTE_UNITS = 400_000
/** Scheme static path cap (§3.1, `@x402/svm` MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS): 5 lamports per CU. */
export const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n
/** How long after verification a transaction may still land (blockhash lifetime ~60-90 s, rounded up). */
export const SOLANA_SETTLEMENT_WINDOW_SECONDS = 90
/** USDC has 6 decimals on Solana as everywhere; TransferChecked must say so. */
export const USDC_DECIMALS = 6

/** The largest Solana transaction (packet size); a bigger payload is not a transaction. */
const MAX_TRANSACTION_BYTES = 1232
const TRANSFER_CHECKED = 12
const SET_COMPUTE_UNIT_LIMIT = 2
const SET_COMPUTE_UNIT_PRICE = 3

export interface VerifySvmDeps {
  config: PaymentConfig
  nonceStore: NonceStore
  /** The service's own fee payer (the challenge's `extra.feePayer`) and the RPC to check blockhashes. */
  solana: { feePayer: string; rpc: Pick<SolanaRpc, 'isBlockhashValid'> }
}

export interface VerifySvmInput {
  payment: DecodedPayment
  requirement: PaymentRequirement
  now: Date
  claimNonce: boolean
}

/** A payment transaction decoded far enough to check it. */
interface DecodedTransaction {
  transaction: Transaction
  compiled: CompiledTransactionMessage
}

function decodeTransaction(base64: string): DecodedTransaction | undefined {
  try {
    const bytes = getBase64Encoder().encode(base64)
    if (bytes.length > MAX_TRANSACTION_BYTES) return undefined
    const transaction = getTransactionDecoder().decode(bytes)
    const compiled = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
    return { transaction, compiled }
  } catch {
    return undefined
  }
}

async function signatureValid(address: string, signature: SignatureBytes, message: Uint8Array) {
  try {
    const key = await getPublicKeyFromAddress(address as Address)
    return await verifySignature(key, signature, message)
  } catch {
    return false
  }
}

/**
 * Verifies an x402 `exact` SVM payment locally (x402 specs/schemes/exact/scheme_exact_svm.md,
 * static layout path §3.1 and the sponsor's MUSTs §2.1), before the operation runs. The payload is a
 * versioned transaction signed by the payer, still missing the fee payer's signature. Checked in
 * this order, each refusal with its own code (ERROR_CODES.md): it decodes (`malformed_payload`);
 * the echoed asset (`wrong_asset`); no address lookup tables (`lookup_tables_unsupported`); the fee
 * payer is the service's key (`fee_payer_mismatch`); exactly two required signers
 * (`extra_signers`); 3 to 7 instructions: SetComputeUnitLimit, SetComputeUnitPrice, SPL Token
 * TransferChecked, then only Memo or Lighthouse (`instruction_layout`); compute limits within
 * bounds (`compute_budget_too_high`); the fee payer in no instruction at all, so never an
 * authority or source (`fee_payer_not_isolated`); mint and decimals (`wrong_asset`); the
 * destination is payTo's associated token account (`wrong_recipient`); amount >= the challenged
 * price (`insufficient_amount`); the transfer authority's signature (`invalid_signature`); the
 * blockhash still valid (`expired`); and last the replay claim by the payer's signature
 * (`nonce_replay`), so a forged payment never burns a real one. Rejects only when the RPC or the
 * NonceStore fails.
 */
export async function verifySvmPayment(deps: VerifySvmDeps, input: VerifySvmInput): Promise<VerifyResult> {
  const { payment, requirement } = input
  const network = requirement.network
  if (payment.scheme !== 'exact')
    return reject('unsupported_scheme', `scheme ${payment.scheme} is not accepted`)
  const base64 = payment.payload.transaction
  if (typeof base64 !== 'string' || base64.length === 0) {
    return reject('malformed_payload', 'Solana payload needs a base64 transaction')
  }
  const decoded = decodeTransaction(base64)
  if (!decoded)
    return reject('malformed_payload', 'payload.transaction is not a serialized Solana transaction')
  const { transaction, compiled } = decoded
  if (payment.accepted && payment.accepted.asset !== network.asset) {
    return reject('wrong_asset', `asset ${payment.accepted.asset} is not ${network.asset}`)
  }
  const lookups = 'addressTableLookups' in compiled ? compiled.addressTableLookups : undefined
  if ((lookups?.length ?? 0) > 0) {
    return reject('lookup_tables_unsupported', 'address lookup tables would hide accounts from verification')
  }
  const accounts = compiled.staticAccounts.map(String)
  const feePayer = accounts[0]
  if (feePayer !== deps.solana.feePayer) {
    return reject('fee_payer_mismatch', `fee payer ${feePayer ?? '(none)'} is not ${deps.solana.feePayer}`)
  }
  if (compiled.header.numSignerAccounts > 2) {
    return reject(
      'extra_signers',
      `transaction requires ${compiled.header.numSignerAccounts} signers; only the payer and the fee payer may sign`,
    )
  }

  let instructions: ReturnType<typeof decompileTransactionMessage>['instructions']
  let blockhash: string | undefined
  try {
    if (!('lifetimeToken' in compiled) || typeof compiled.lifetimeToken !== 'string') {
      return reject('malformed_payload', 'transaction has no blockhash')
    }
    const message = decompileTransactionMessage(compiled as typeof compiled & { lifetimeToken: string })
    instructions = message.instructions
    blockhash =
      'blockhash' in message.lifetimeConstraint ? String(message.lifetimeConstraint.blockhash) : undefined
  } catch {
    return reject('malformed_payload', 'transaction message cannot be decompiled')
  }
  if (instructions.length < 3 || instructions.length > 7) {
    return reject('instruction_layout', `${instructions.length} instructions; the scheme allows 3 to 7`)
  }
  const [limitIx, priceIx, transferIx, ...optional] = instructions as [
    (typeof instructions)[number],
    (typeof instructions)[number],
    (typeof instructions)[number],
    ...(typeof instructions)[number][],
  ]
  const isComputeBudget = (ix: (typeof instructions)[number], discriminator: number) =>
    ix.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS && ix.data?.[0] === discriminator
  if (!isComputeBudget(limitIx, SET_COMPUTE_UNIT_LIMIT)) {
    return reject('instruction_layout', 'instruction 1 must be ComputeBudget SetComputeUnitLimit')
  }
  if (!isComputeBudget(priceIx, SET_COMPUTE_UNIT_PRICE)) {
    return reject('instruction_layout', 'instruction 2 must be ComputeBudget SetComputeUnitPrice')
  }
  if (transferIx.programAddress !== TOKEN_PROGRAM_ADDRESS || transferIx.data?.[0] !== TRANSFER_CHECKED) {
    return reject('instruction_layout', 'instruction 3 must be SPL Token TransferChecked')
  }
  const extra = optional.find(
    (ix) => ix.programAddress !== MEMO_PROGRAM_ADDRESS && ix.programAddress !== LIGHTHOUSE_PROGRAM_ADDRESS,
  )
  if (extra) {
    return reject('instruction_layout', `instruction of program ${extra.programAddress} is not allowed`)
  }
  let units: number
  let microLamports: bigint
  let transfer: ReturnType<typeof parseTransferCheckedInstruction>
  try {
    units = parseSetComputeUnitLimitInstruction(limitIx as never).data.units
    microLamports = BigInt(parseSetComputeUnitPriceInstruction(priceIx as never).data.microLamports)
    transfer = parseTransferCheckedInstruction(transferIx as never)
  } catch {
    return reject('instruction_layout', 'compute budget or TransferChecked instruction is malformed')
  }
  if (units > MAX_COMPUTE_UNITS) {
    return reject('compute_budget_too_high', `compute unit limit ${units} is above ${MAX_COMPUTE_UNITS}`)
  }
  if (microLamports > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS) {
    return reject(
      'compute_budget_too_high',
      `compute unit price ${microLamports} micro-lamports is above ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS}`,
    )
  }
  const payer = String(transfer.accounts.authority.address)
  // §2.1.1: the fee payer appears in no instruction (as account or program), so it can never be
  // the authority, source or delegate of a transfer, nor lose lamports beyond the fee.
  const touchesFeePayer = compiled.instructions.some(
    (ix) => ix.programAddressIndex === 0 || (ix.accountIndices ?? []).includes(0),
  )
  if (touchesFeePayer || payer === feePayer || String(transfer.accounts.source.address) === feePayer) {
    return reject('fee_payer_not_isolated', "the service's fee payer is used by an instruction", payer)
  }
  const mint = String(transfer.accounts.mint.address)
  if (mint !== network.asset) return reject('wrong_asset', `mint ${mint} is not ${network.asset}`, payer)
  if (transfer.data.decimals !== USDC_DECIMALS) {
    return reject(
      'wrong_asset',
      `TransferChecked decimals ${transfer.data.decimals} are not ${USDC_DECIMALS}`,
      payer,
    )
  }
  const [payToAta] = await findAssociatedTokenPda({
    mint: network.asset as Address,
    owner: network.payTo as Address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  })
  const destination = String(transfer.accounts.destination.address)
  if (destination !== payToAta) {
    return reject(
      'wrong_recipient',
      `destination ${destination} is not the payTo token account ${payToAta}`,
      payer,
    )
  }
  const amount = transfer.data.amount
  if (amount < requirement.amount) {
    return reject('insufficient_amount', `amount ${amount} is below the price ${requirement.amount}`, payer)
  }
  // The authority is the only signer besides the fee payer (checked above): its signature must be
  // present and valid over the message.
  const payerSignature = transaction.signatures[payer as Address]
  if (accounts[1] !== payer || !payerSignature) {
    return reject('invalid_signature', 'the transfer authority has not signed the transaction', payer)
  }
  if (!(await signatureValid(payer, payerSignature, new Uint8Array(transaction.messageBytes)))) {
    return reject('invalid_signature', "the payer's signature does not match the transaction", payer)
  }
  if (!blockhash || !(await deps.solana.rpc.isBlockhashValid(blockhash))) {
    return reject('expired', `blockhash ${blockhash ?? '(none)'} is no longer valid`, payer)
  }

  const payerSignatureBase58 = getBase58Decoder().decode(payerSignature)
  const paymentId = `${network.network}:${payer}:${payerSignatureBase58}`
  if (input.claimNonce) {
    const expiresAt = new Date(input.now.getTime() + deps.config.replayWindowSeconds * 1000)
    // Hex, because the nonce store compares case-insensitively and base58 is case-sensitive.
    const nonce = `0x${Buffer.from(payerSignature).toString('hex')}`
    if (!(await deps.nonceStore.claim(network.network, nonce, payer, expiresAt))) {
      return reject('nonce_replay', 'this Solana transaction was already used', payer, paymentId)
    }
  }
  const paymentRequirements = toStandardRequirement(requirement)
  return {
    isValid: true,
    paymentId,
    kind: 'solana',
    network: network.network,
    payer,
    amount,
    price: requirement.amount,
    requirement,
    paymentPayload: toCanonicalPayload(requirement, { transaction: base64 }),
    paymentRequirements,
    validBefore: new Date(input.now.getTime() + SOLANA_SETTLEMENT_WINDOW_SECONDS * 1000),
  }
}
