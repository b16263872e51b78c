import type { PaymentErrorCode } from './error-codes.ts'
import type { VerifiedPayment } from './verify-result.ts'

/** Outcome of settling one verified payment (x402 SettleResponse plus what the ledger needs). */
export interface SettleResult {
  success: boolean
  /** Transaction hash (EVM) or signature (Solana) when one was sent. */
  transaction?: string
  /** CAIP-2 network. */
  network: string
  payer: string
  /** Settled amount in 6-decimal units. */
  amount?: string
  errorReason?: PaymentErrorCode
  errorMessage?: string
  /** True when a later retry of the same payment may still succeed (ledger keeps it PENDING). */
  retryable?: boolean
  /**
   * False only when it is certain nothing reached a facilitator or the chain (circuit breaker
   * open, connection refused, RPC down before sending), so nothing can move money later; true or
   * absent when a request or transaction may have gone out.
   */
  submitted?: boolean
  /** True when the circuit-breaker fallback settled it (HTTP: `X-Payment-Fallback: true`). */
  fallback?: boolean
}

/** Settles verified payments: on chain with the operator's key, or through an x402 facilitator. */
export interface Settler {
  settle(payment: VerifiedPayment): Promise<SettleResult>
}

/** The x402 SettleResponse a client sees in `PAYMENT-RESPONSE` and MCP `_meta["x402/payment-response"]`. */
export interface PaymentResponse {
  success: boolean
  transaction: string
  network: string
  payer: string
  amount?: string
  errorReason?: PaymentErrorCode
}

/** The client-facing settlement response: no internal fields (retryable, fallback, messages). */
export function buildPaymentResponse(result: SettleResult): PaymentResponse {
  return {
    success: result.success,
    transaction: result.transaction ?? '',
    network: result.network,
    payer: result.payer,
    ...(result.amount === undefined ? {} : { amount: result.amount }),
    ...(result.errorReason === undefined ? {} : { errorReason: result.errorReason }),
  }
}

/** The SettleResponse of a settlement that did not happen (x402 facilitator `/settle` failure body). */
export function failedSettleResponse(reason: PaymentErrorCode, payer = ''): PaymentResponse {
  return { success: false, errorReason: reason, transaction: '', network: '', payer }
}
