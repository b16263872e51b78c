import {
  type Address,
  getBase58Decoder,
  getBase64Decoder,
  getBase64Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit'
import type { PaymentErrorCode } from '../error-codes.ts'
import type { SettleResult, Settler } from '../settle-result.ts'
import type { VerifiedPayment } from '../verify-result.ts'
import type { SolanaFeePayer } from './fee-payer.ts'
import { type SolanaRpc, SolanaRpcError } from './rpc.ts'

export interface SvmSettlerOptions {
  feePayer: SolanaFeePayer
  rpc: SolanaRpc
  /** How long to wait for `confirmed` before reporting `settlement_timeout` (default 30 s). */
  confirmTimeoutMs?: number
  /** Pause between status polls (default 400 ms, one slot). */
  pollIntervalMs?: number
}

export interface SvmSettler extends Settler {
  /** Whether this service settles the payment (its requirement names this fee payer). */
  handles(payment: VerifiedPayment): boolean
  /**
   * Whether the payment's transaction landed (sweep of interrupted settlements): true when
   * confirmed, false when it failed or is unknown to the cluster, undefined while in flight or
   * when the RPC cannot be asked.
   */
  transactionLanded(payment: VerifiedPayment): Promise<boolean | undefined>
}

/** The transaction with the fee payer's signature added, its base64 wire form and its id. */
async function coSign(
  feePayer: SolanaFeePayer,
  base64: string,
): Promise<{ wire: string; signature: string }> {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64))
  const messageBytes = new Uint8Array(transaction.messageBytes)
  const feePayerSignature = (await feePayer.sign(messageBytes)) as SignatureBytes
  const signed: Transaction = {
    ...transaction,
    signatures: { ...transaction.signatures, [feePayer.address as Address]: feePayerSignature },
  }
  const wire = getBase64Decoder().decode(getTransactionEncoder().encode(signed))
  // A Solana transaction's id is its first signature, the fee payer's.
  return { wire, signature: getBase58Decoder().decode(feePayerSignature) }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Maps a preflight or on-chain transaction error to our code. */
function settleErrorCode(reason: string | undefined): PaymentErrorCode {
  if (reason === 'BlockhashNotFound') return 'expired'
  // SPL Token error 1 is InsufficientFunds (the payer's token balance).
  if (reason === 'custom:1') return 'insufficient_funds'
  return 'settlement_failed'
}

/**
 * Settles x402 SVM payments with the service's own fee payer: adds the fee payer's
 * signature to the payer's partially signed transaction, sends it through the Solana RPC with
 * preflight, and waits for `confirmed`. Ed25519 signatures are deterministic, so the transaction
 * id is known before sending and a retry re-sends the very same transaction (the cluster runs a
 * signature once). An unreachable RPC or a confirmation that does not come in time is retryable;
 * an expired blockhash, a failed preflight or an on-chain failure is final. Never throws.
 */
export function createSvmSettler(options: SvmSettlerOptions): SvmSettler {
  const { feePayer, rpc } = options
  const confirmTimeoutMs = options.confirmTimeoutMs ?? 30_000
  const pollIntervalMs = options.pollIntervalMs ?? 400

  const handles = (payment: VerifiedPayment) =>
    payment.kind === 'solana' && payment.paymentRequirements.extra.feePayer === feePayer.address
  const transactionOf = (payment: VerifiedPayment) => {
    const value = payment.paymentPayload.payload.transaction
    return typeof value === 'string' ? value : undefined
  }

  return {
    handles,

    async transactionLanded(payment) {
      const base64 = transactionOf(payment)
      if (!handles(payment) || !base64) return undefined
      try {
        const { signature } = await coSign(feePayer, base64)
        const status = await rpc.signatureStatus(signature)
        if (status.state === 'confirmed') return true
        if (status.state === 'processed') return undefined
        return false
      } catch {
        return undefined
      }
    },

    async settle(payment) {
      const base = { network: payment.network, payer: payment.payer }
      const fail = (
        errorReason: PaymentErrorCode,
        errorMessage: string,
        extra: Partial<SettleResult> = {},
      ): SettleResult => ({ ...base, success: false, errorReason, errorMessage, retryable: false, ...extra })
      const base64 = transactionOf(payment)
      if (!handles(payment) || !base64) {
        return fail('unsupported_network', `${payment.network} payment does not name this fee payer`)
      }
      let signed: { wire: string; signature: string }
      try {
        signed = await coSign(feePayer, base64)
      } catch (error) {
        return fail('settlement_failed', `cannot co-sign the transaction: ${String(error)}`)
      }
      const landed = {
        ...base,
        success: true,
        transaction: signed.signature,
        amount: payment.amount.toString(),
      }
      try {
        await rpc.sendTransaction(signed.wire)
      } catch (error) {
        if (error instanceof SolanaRpcError && error.kind === 'rejected') {
          // Sent before (a retry after a timeout): the status tells what became of it.
          if (error.reason !== 'AlreadyProcessed') {
            return fail(settleErrorCode(error.reason), error.message, { transaction: signed.signature })
          }
        } else {
          return fail('settlement_failed', `Solana RPC unavailable: ${String(error)}`, {
            retryable: true,
            transaction: signed.signature,
          })
        }
      }
      const deadline = Date.now() + confirmTimeoutMs
      for (;;) {
        try {
          const status = await rpc.signatureStatus(signed.signature)
          if (status.state === 'confirmed') return landed
          if (status.state === 'failed') {
            return fail(settleErrorCode(status.error), `transaction failed on chain: ${status.error}`, {
              transaction: signed.signature,
            })
          }
        } catch {
          // unavailable for a moment: keep polling until the deadline
        }
        if (Date.now() >= deadline) {
          return fail('settlement_timeout', 'transaction sent but not confirmed in time', {
            transaction: signed.signature,
            retryable: true,
          })
        }
        await sleep(pollIntervalMs)
      }
    },
  }
}
