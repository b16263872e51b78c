import type { Caller, KeyCaller, Quality } from '../context.ts'
import type { KeyReservations } from '../keys/reservations.ts'
import type { Micros } from '../money.ts'
import { type OperationPrice, priceFor } from './pricing.ts'
import type { PaymentResponse } from './settle-result.ts'

export type PaidWith = 'account' | 'x402' | 'sandbox' | 'free' | 'operator'

/** What is being paid for: everything the gate needs to know about one call, and nothing else. */
export interface ChargeRequest {
  /** The operation id (MCP tool name), recorded on ledger rows. */
  operationId: string
  /** What the challenge tells the payer this buys. */
  description: string
  /** null: a free operation that still needs an API key. */
  price: OperationPrice | null
  caller: Caller
  quality: Quality
  /** Raw PAYMENT-SIGNATURE / X-PAYMENT value, or the MCP `_meta["x402/payment"]` object. */
  payment?: unknown
  /** Absolute URL of the resource, for x402 challenges. */
  resourceUrl: string
  /** Number of billable units (leads per lead); 1 otherwise. */
  units?: number
  /**
   * What makes two calls the same request (idempotencyRequestHash: operation, quality tier,
   * input): an x402 payment presented again for the same request after it was settled gets the
   * answer it bought; for another request it is a replayed nonce.
   */
  requestHash?: string
  /**
   * Called with the payer once it is known (the key, or the verified x402 payer) and before any
   * money moves: the rate limiter counts the call here and throws to refuse it, so a refused call
   * is never charged (spec: Limits).
   */
  admit?: (payer: Caller) => Promise<void>
}

/** How an x402 payment ended for the caller: settled now, or verified and held for the retry worker. */
export interface SettlementReceipt {
  state: 'settled' | 'pending'
  /** Authorized amount in micro-USDC. */
  amount: Micros
  /** True when the circuit-breaker fallback settled it, or settlement was deferred. */
  fallback: boolean
  /** The x402 SettleResponse the client sees. */
  response: PaymentResponse
}

/**
 * What a completed call cost, as data (DESIGN: core returns data): the HTTP adapter renders it as
 * X-Charged-Amount / X-Payment-* / PAYMENT-RESPONSE headers, the MCP adapter as `_meta`.
 */
export interface Receipt {
  paidWith: PaidWith
  amount: Micros
  /** Key balance after an account debit. */
  balanceRemaining?: Micros
  /** x402 payments only. */
  settlement?: SettlementReceipt
}

/** An answer as stored for a replay: the success status and the JSON text of the output (null for a 204). */
export interface PaidAnswer {
  status: number
  body: string | null
}

/**
 * One open charge: completed when the operation produced its answer, finished once the adapter
 * knows whether that answer reached the caller, cancelled when the operation failed.
 */
export interface Charge {
  paidWith: PaidWith
  amount: Micros
  /** The caller the operation runs as (an x402 payer once a payment verified). */
  caller: Caller
  /**
   * A key debit's reservation (key_reservations.id): an Idempotency-Key answer written under it
   * becomes replayable in the capture statement itself, and is deleted when it is released.
   */
  reservationId?: string
  /**
   * An x402 payment presented again for the same request after it was settled: the answer it
   * bought, served again and charged nothing now (the receipt carries the original settlement).
   */
  replay?: { answer: PaidAnswer; receipt: Receipt }
  /**
   * The answer is ready and not yet sent: make the payment stand where its mechanism needs that
   * first (x402 settles on chain, so the receipt can carry the settlement) and say what is paid.
   * A key debit stays reserved until `finish`. Throws PaymentRequiredError when settlement fails
   * (output withheld).
   */
  complete(): Promise<Receipt>
  /**
   * After `complete`, once the adapter knows whether the answer reached the caller: a key debit
   * is captured when it did and released when it did not. x402 payments were settled in
   * `complete` (their answer is kept for a retry instead). Throws when a capture could not be
   * written (the reservations retry it).
   */
  finish(delivered: boolean): Promise<void>
  /** x402: keeps the answer for a retry with the same payment and request. */
  keepAnswer?(answer: PaidAnswer): Promise<void>
  /** After failure: nothing is charged (refund a debit, release a payment). */
  cancel(): Promise<void>
}

/** The one charging path shared by REST and MCP (DESIGN: The spine). */
export interface PaymentGate {
  open(request: ChargeRequest): Promise<Charge>
}

/** A charge that costs nothing (sandbox mocks, free operations, the operator). */
export function freeCharge(caller: Caller, paidWith: PaidWith): Charge {
  return {
    paidWith,
    amount: 0n,
    caller,
    complete: async () => ({ paidWith, amount: 0n }),
    finish: async () => {},
    cancel: async () => {},
  }
}

/** The amount a request costs for one payment method (price per unit times units). */
export function chargeAmount(request: ChargeRequest, method: 'x402' | 'account'): Micros | undefined {
  if (!request.price) return undefined
  return priceFor(request.price[method], request.quality) * BigInt(request.units ?? 1)
}

/**
 * Reserves the account price from a live key's prepaid balance, durably and atomically, before
 * the operation runs (core/keys/reservations.ts). The reservation is captured once the answer was
 * delivered and released when the call failed or its answer was not delivered, once, whatever
 * happens in between (a crash leaves it to the next process's sweep, which releases it). Returns
 * null when the balance does not cover it.
 */
export async function openAccountCharge(
  reservations: KeyReservations,
  request: ChargeRequest & { caller: KeyCaller },
): Promise<Charge | null> {
  const { caller } = request
  const amount = chargeAmount(request, 'account')
  if (amount === undefined) return freeCharge(caller, 'free')
  const reservation = await reservations.reserve(caller.keyId, amount, request.operationId)
  if (!reservation) return null
  let state: 'open' | 'answered' | 'captured' | 'released' = 'open'
  const release = async () => {
    if (state === 'captured' || state === 'released') return
    state = 'released'
    await reservations.release(reservation.id)
  }
  return {
    paidWith: 'account',
    amount,
    caller,
    reservationId: reservation.id,
    complete: async () => {
      if (state === 'released') throw new Error('complete() after cancel(): the charge was released')
      if (state === 'open') state = 'answered'
      return { paidWith: 'account', amount, balanceRemaining: reservation.balance }
    },
    finish: async (delivered) => {
      if (!delivered) return release()
      if (state !== 'answered') return
      state = 'captured'
      await reservations.capture(reservation.id)
    },
    // After complete, delivery decides (finish); cancel is for a call that failed before.
    cancel: async () => {
      if (state === 'open') await release()
    },
  }
}
