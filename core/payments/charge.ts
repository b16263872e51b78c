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

/** One open charge: completed after the operation succeeded, cancelled when it failed. */
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
  /** After success: settle and say what was paid. Throws PaymentRequiredError when settlement fails (output withheld). */
  complete(): Promise<Receipt>
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
 * the operation runs (core/keys/reservations.ts). The reservation is captured when the answer is
 * produced and released when the call fails, once, whatever happens in between (a crash leaves it
 * to the next process's sweep). Returns null when the balance does not cover it.
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
  let state: 'open' | 'captured' | 'released' = 'open'
  return {
    paidWith: 'account',
    amount,
    caller,
    reservationId: reservation.id,
    complete: async () => {
      if (state === 'released') throw new Error('complete() after cancel(): the charge was released')
      if (state === 'open') {
        try {
          await reservations.capture(reservation.id)
        } catch (error) {
          // Not captured: no answer, so nothing charged (a lost reservation was already released).
          state = 'released'
          await reservations.release(reservation.id)
          throw error
        }
        state = 'captured'
      }
      return { paidWith: 'account', amount, balanceRemaining: reservation.balance }
    },
    cancel: async () => {
      if (state !== 'open') return
      state = 'released'
      await reservations.release(reservation.id)
    },
  }
}
