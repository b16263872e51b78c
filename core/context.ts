/**
 * The vocabulary every layer shares: who is calling, which quality tier they asked for, and the
 * clock. A leaf module: it imports nothing, so anything may import it without a cycle.
 */

/** spec: API key tiers. */
export type Tier = 'sandbox' | 'free' | 'starter' | 'pro' | 'enterprise'

/** A key holder (customer or operator). */
export interface KeyCaller {
  kind: 'key'
  keyId: string
  tier: Tier
  /** live keys get real data; sandbox keys get mocks. */
  mode: 'live' | 'sandbox'
  role: 'customer' | 'admin'
}

/** Who is calling: a key holder, an x402 payer, or nobody yet. */
export type Caller = KeyCaller | { kind: 'x402'; payer: string; network: string } | { kind: 'anonymous' }

/** Spec: Endpoints, `X-Response-Quality` (cached, fresh or enhanced; default fresh). */
export type Quality = 'cached' | 'fresh' | 'enhanced'
export const QUALITIES: readonly Quality[] = ['cached', 'fresh', 'enhanced']

export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }
