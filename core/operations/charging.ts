import type { Caller } from '../context.ts'
import type { ApiKeyService } from '../keys/api-keys.ts'
import type { Micros } from '../money.ts'
import { type AnyOperation, priceFor, type Quality } from './define.ts'

export type PaidWith = 'account' | 'x402' | 'sandbox' | 'free' | 'operator'

export interface ChargeRequest {
  operation: AnyOperation
  caller: Caller
  quality: Quality
  /** Raw PAYMENT-SIGNATURE / X-PAYMENT value, or the MCP `_meta["x402/payment"]` object. */
  payment?: unknown
  /** Absolute URL of the resource, for x402 challenges. */
  resourceUrl: string
  /** Number of billable units (leads per lead); 1 otherwise. */
  units?: number
}

/** One open charge: completed after the operation succeeded, cancelled when it failed. */
export interface Charge {
  paidWith: PaidWith
  amount: Micros
  /** The caller the operation runs as (an x402 payer once a payment verified). */
  caller: Caller
  /** Response headers to add on success (X-Payment-*, PAYMENT-RESPONSE). */
  headers: Record<string, string>
  /** MCP `_meta` members to add on success (x402/payment-response). */
  meta: Record<string, unknown>
  /** After success: settle. May throw PaymentRequiredError when settlement fails (output withheld). */
  complete(): Promise<void>
  /** After failure: nothing is charged (refund a debit, release a payment). */
  cancel(): Promise<void>
}

/** The one charging path shared by REST and MCP (DESIGN: The spine). */
export interface PaymentGate {
  open(request: ChargeRequest): Promise<Charge>
}

const noop = async () => {}

/** A charge that costs nothing (sandbox mocks, free operations, the operator). */
export function freeCharge(caller: Caller, paidWith: PaidWith): Charge {
  return { paidWith, amount: 0n, caller, headers: {}, meta: {}, complete: noop, cancel: noop }
}

/**
 * Debits a live key's prepaid balance at the account price, atomically, before the operation
 * runs, and refunds it if the operation fails. Returns null when the balance does not cover it.
 */
export async function openAccountCharge(
  keys: ApiKeyService,
  request: ChargeRequest & { caller: Extract<Caller, { kind: 'key' }> },
): Promise<Charge | null> {
  const { operation, caller, quality } = request
  if (!operation.price) return freeCharge(caller, 'free')
  const amount = priceFor(operation.price.account, quality) * BigInt(request.units ?? 1)
  const debit = await keys.debit(caller.keyId, amount)
  if (!debit.ok) return null
  let settled = false
  return {
    paidWith: 'account',
    amount,
    caller,
    headers: { 'X-Charged-Amount': amount.toString(), 'X-Balance-Remaining': debit.balance.toString() },
    meta: {},
    complete: async () => {
      settled = true
    },
    cancel: async () => {
      if (settled) return
      settled = true
      await keys.refund(caller.keyId, amount)
    },
  }
}
