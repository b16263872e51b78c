import { z } from 'zod'
import type { CircuitBreaker } from '../../sources/circuit-breaker.ts'
import { PAYMENT_ERROR_CODES, type PaymentErrorCode } from '../error-codes.ts'
import type { SettleResult, Settler } from '../settle-result.ts'
import type { CanonicalPaymentPayload, StandardRequirement, VerifiedPayment } from '../verify-result.ts'

export interface FacilitatorClientOptions {
  /** Base URL; the client POSTs to `{url}/verify` and `{url}/settle`. */
  url: string
  /** Per-call timeout (default 5 s for verify, twice that for settle, which waits for the chain). */
  timeoutMs?: number
  settleTimeoutMs?: number
  breaker?: CircuitBreaker
  /** Extra request headers (e.g. the facilitator's API key), resolved per call. */
  headers?: () => Record<string, string>
  fetch?: typeof fetch
}

export type FacilitatorVerifyResult =
  | { isValid: true; payer: string }
  | { isValid: false; invalidReason: PaymentErrorCode; invalidMessage: string; payer?: string }

/** Speaks the x402 facilitator protocol: POST /verify and /settle with `{ x402Version, paymentPayload, paymentRequirements }`. */
export interface FacilitatorClient {
  verify(
    paymentPayload: CanonicalPaymentPayload,
    requirements: StandardRequirement,
  ): Promise<FacilitatorVerifyResult>
  settle(paymentPayload: CanonicalPaymentPayload, requirements: StandardRequirement): Promise<SettleResult>
  /** `GET /supported`: the kinds the facilitator settles, with their `extra` (Solana `feePayer`); undefined when it cannot be read. */
  supported?(): Promise<SupportedKind[] | undefined>
}

const SupportedResponseSchema = z.looseObject({
  kinds: z.array(
    z.looseObject({
      x402Version: z.number().optional().describe('x402 version of the kind.'),
      scheme: z.string().describe('Payment scheme, exact.'),
      network: z.string().describe('CAIP-2 id or x402 v1 network name.'),
      extra: z.record(z.string(), z.unknown()).optional().describe('Scheme data, e.g. Solana feePayer.'),
    }),
  ),
})

export type SupportedKind = z.infer<typeof SupportedResponseSchema>['kinds'][number]

const VerifyResponseSchema = z.looseObject({
  isValid: z.boolean().describe('Whether the facilitator accepts the payment.'),
  invalidReason: z.string().nullish().describe('Why not, when isValid is false.'),
  invalidMessage: z.string().nullish().describe('Human-readable detail.'),
  payer: z.string().nullish().describe('Payer address.'),
})

const SettleResponseSchema = z.looseObject({
  success: z.boolean().describe('Whether the payment was settled.'),
  errorReason: z.string().nullish().describe('Why not, when success is false.'),
  errorMessage: z.string().nullish().describe('Human-readable detail.'),
  transaction: z.string().nullish().describe('Transaction hash or signature.'),
  network: z.string().nullish().describe('Network the payment settled on.'),
  payer: z.string().nullish().describe('Payer address.'),
  amount: z.string().nullish().describe('Settled amount in atomic units.'),
})

/** Official x402 facilitator reasons mapped to ours; unknown reasons become `facilitator_rejected`. */
const FACILITATOR_REASONS: Readonly<Record<string, PaymentErrorCode>> = {
  insufficient_funds: 'insufficient_funds',
  invalid_exact_evm_payload_signature: 'invalid_signature',
  invalid_exact_evm_payload_authorization_value: 'insufficient_amount',
  invalid_exact_evm_payload_authorization_valid_before: 'expired',
  invalid_exact_evm_payload_authorization_valid_after: 'not_yet_valid',
  invalid_exact_evm_payload_recipient_mismatch: 'wrong_recipient',
  invalid_exact_svm_payload_transaction_amount_mismatch: 'insufficient_amount',
  invalid_exact_svm_payload_amount_mismatch: 'insufficient_amount',
  invalid_exact_svm_payload_mint_mismatch: 'wrong_asset',
  invalid_exact_svm_payload_recipient_mismatch: 'wrong_recipient',
  invalid_exact_svm_payload_signature_invalid: 'invalid_signature',
  invalid_exact_svm_fee_payer_mismatch: 'fee_payer_mismatch',
  invalid_exact_svm_payload_transaction_fee_payer_transferring_funds: 'fee_payer_not_isolated',
  invalid_exact_svm_payload_excessive_signers: 'extra_signers',
  invalid_exact_svm_payload_transaction_instructions_length: 'instruction_layout',
  invalid_exact_svm_payload_no_transfer_instruction: 'instruction_layout',
  invalid_exact_svm_payload_unknown_fourth_instruction: 'instruction_layout',
  invalid_exact_svm_payload_unknown_fifth_instruction: 'instruction_layout',
  invalid_exact_svm_payload_unknown_sixth_instruction: 'instruction_layout',
  invalid_exact_svm_payload_unknown_seventh_instruction: 'instruction_layout',
  invalid_exact_svm_payload_unknown_optional_instruction: 'instruction_layout',
  invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction: 'instruction_layout',
  invalid_exact_svm_payload_transaction_instructions_compute_price_instruction: 'instruction_layout',
  invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high:
    'compute_budget_too_high',
  invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high:
    'compute_budget_too_high',
  invalid_exact_svm_payload_transaction_could_not_be_decoded: 'malformed_payload',
  invalid_network: 'unsupported_network',
  invalid_scheme: 'unsupported_scheme',
  unsupported_scheme: 'unsupported_scheme',
  payment_expired: 'expired',
  invalid_x402_version: 'unsupported_version',
  invalid_payload: 'malformed_payload',
  duplicate_settlement: 'nonce_replay',
}

/** Maps a facilitator's reason string to our error code (our own codes pass through). */
export function mapFacilitatorReason(reason: string | null | undefined): PaymentErrorCode {
  if (!reason) return 'facilitator_rejected'
  if ((PAYMENT_ERROR_CODES as readonly string[]).includes(reason)) return reason as PaymentErrorCode
  return FACILITATOR_REASONS[reason] ?? 'facilitator_rejected'
}

type CallOutcome =
  | { kind: 'answer'; status: number; body: unknown }
  /** `sent`: false when it is certain the facilitator never received the request. */
  | { kind: 'unavailable'; message: string; sent: boolean }

/**
 * HTTP client of an x402 facilitator with a timeout and a circuit breaker (DESIGN: Payments,
 * settlement through a configurable facilitator). Unreachable, slow (timeout), 5xx, 429 and
 * unparseable answers count as failures and yield `facilitator_unavailable` (retryable); while
 * the breaker is open no request is sent. A well-formed refusal is data, mapped to our codes.
 */
export function createFacilitatorClient(options: FacilitatorClientOptions): FacilitatorClient {
  const base = options.url.replace(/\/+$/, '')
  const doFetch = options.fetch ?? fetch
  const verifyTimeout = options.timeoutMs ?? 5_000
  const settleTimeout = options.settleTimeoutMs ?? verifyTimeout * 2

  async function call(
    path: '/verify' | '/settle',
    paymentPayload: CanonicalPaymentPayload,
    requirements: StandardRequirement,
    timeoutMs: number,
  ): Promise<CallOutcome> {
    if (options.breaker && !options.breaker.tryAcquire())
      return { kind: 'unavailable', message: 'circuit breaker open', sent: false }
    let outcome: CallOutcome
    try {
      const response = await doFetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers?.() },
        body: JSON.stringify({
          x402Version: paymentPayload.x402Version,
          paymentPayload,
          paymentRequirements: requirements,
        }),
        signal: AbortSignal.timeout(timeoutMs),
      })
      const text = await response.text()
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      outcome =
        response.status >= 500 || response.status === 429 || body === undefined
          ? {
              kind: 'unavailable',
              message: `facilitator answered ${response.status}`,
              // A 429 was refused unprocessed; a 5xx may have been half done.
              sent: response.status !== 429,
            }
          : { kind: 'answer', status: response.status, body }
    } catch (error) {
      const timedOut =
        error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
      outcome = {
        kind: 'unavailable',
        message: timedOut
          ? `facilitator timed out after ${timeoutMs} ms`
          : `facilitator unreachable: ${String(error)}`,
        sent: timedOut || !neverConnected(error),
      }
    }
    if (outcome.kind === 'unavailable') options.breaker?.recordFailure(outcome.message)
    return outcome
  }

  /** A JSON answer of the wrong shape: a 4xx is a refusal by a working facilitator, a 2xx a broken one. */
  function unreadable(
    status: number,
    what: string,
  ): { isValid: false; invalidReason: PaymentErrorCode; invalidMessage: string } {
    if (status >= 400) {
      options.breaker?.recordSuccess()
      return {
        isValid: false,
        invalidReason: 'facilitator_rejected',
        invalidMessage: `facilitator refused ${what} (${status})`,
      }
    }
    options.breaker?.recordFailure(`unreadable ${what} answer (${status})`)
    return {
      isValid: false,
      invalidReason: 'facilitator_unavailable',
      invalidMessage: `unreadable ${what} answer`,
    }
  }

  return {
    async supported() {
      try {
        const response = await doFetch(`${base}/supported`, {
          headers: { accept: 'application/json', ...options.headers?.() },
          signal: AbortSignal.timeout(verifyTimeout),
        })
        if (!response.ok) return undefined
        const parsed = SupportedResponseSchema.safeParse(await response.json())
        return parsed.success ? parsed.data.kinds : undefined
      } catch {
        return undefined
      }
    },

    async verify(paymentPayload, requirements) {
      const outcome = await call('/verify', paymentPayload, requirements, verifyTimeout)
      if (outcome.kind === 'unavailable') {
        return { isValid: false, invalidReason: 'facilitator_unavailable', invalidMessage: outcome.message }
      }
      const parsed = VerifyResponseSchema.safeParse(outcome.body)
      if (!parsed.success) return unreadable(outcome.status, 'verify')
      options.breaker?.recordSuccess()
      const { isValid, invalidReason, invalidMessage, payer } = parsed.data
      if (isValid && outcome.status < 300 && payer) return { isValid: true, payer }
      return {
        isValid: false,
        invalidReason: isValid ? 'facilitator_rejected' : mapFacilitatorReason(invalidReason),
        invalidMessage: invalidMessage ?? invalidReason ?? `facilitator answered ${outcome.status}`,
        ...(payer ? { payer } : {}),
      }
    },

    async settle(paymentPayload, requirements) {
      const network = requirements.network
      const outcome = await call('/settle', paymentPayload, requirements, settleTimeout)
      if (outcome.kind === 'unavailable') {
        return {
          success: false,
          network,
          payer: '',
          errorReason: 'facilitator_unavailable',
          errorMessage: outcome.message,
          retryable: true,
          submitted: outcome.sent,
        }
      }
      const parsed = SettleResponseSchema.safeParse(outcome.body)
      if (!parsed.success) {
        const refused = unreadable(outcome.status, 'settle')
        return {
          success: false,
          network,
          payer: '',
          errorReason: refused.invalidReason,
          errorMessage: refused.invalidMessage,
          retryable: refused.invalidReason === 'facilitator_unavailable',
        }
      }
      options.breaker?.recordSuccess()
      const body = parsed.data
      const common = {
        network: body.network ?? network,
        payer: body.payer ?? '',
        ...(body.transaction ? { transaction: body.transaction } : {}),
      }
      if (body.success && outcome.status < 300) {
        return { ...common, success: true, amount: body.amount ?? requirements.amount }
      }
      return {
        ...common,
        success: false,
        errorReason: body.errorReason ? mapFacilitatorReason(body.errorReason) : 'settlement_failed',
        errorMessage: body.errorMessage ?? body.errorReason ?? `facilitator answered ${outcome.status}`,
        retryable: false,
      }
    },
  }
}

/** A Settler that settles through a facilitator (the SVM mechanism without its own fee payer; EVM when configured). */
export function createFacilitatorSettler(client: FacilitatorClient): Settler {
  return {
    async settle(payment: VerifiedPayment) {
      const result = await client.settle(payment.paymentPayload, payment.paymentRequirements)
      return { ...result, payer: result.payer || payment.payer }
    },
  }
}

/**
 * Tries `primary` (usually the facilitator) and, when it is unavailable (down, slow or breaker
 * open), settles with `fallback` (on chain; the EVM mechanism composes it, evm/scheme.ts) and
 * marks the result `fallback: true` so the HTTP layer sends `X-Payment-Fallback: true` (spec:
 * x402 details).
 */
export function createFallbackSettler(parts: { primary: Settler; fallback: Settler }): Settler {
  return {
    async settle(payment: VerifiedPayment) {
      const first = await parts.primary.settle(payment)
      if (first.success || first.errorReason !== 'facilitator_unavailable') return first
      const second = await parts.fallback.settle(payment)
      return {
        ...second,
        fallback: true,
        submitted: first.submitted !== false || second.submitted !== false,
      }
    },
  }
}

/** Errors of a connection that was never made: the request cannot have reached the server. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

function neverConnected(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && NEVER_CONNECTED.has(code)) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
