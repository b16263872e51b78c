import type { z } from 'zod'
import type { OperationContext } from '../context.ts'
import type { Micros } from '../money.ts'

/** Spec: Endpoints, `X-Response-Quality` (cached, fresh or enhanced; default fresh). */
export type Quality = 'cached' | 'fresh' | 'enhanced'
export const QUALITIES: readonly Quality[] = ['cached', 'fresh', 'enhanced']

/** Prices of one payment method per quality tier. An operation without a cached tier charges fresh. */
export interface TierPrices {
  cached?: Micros
  fresh: Micros
  enhanced?: Micros
}

export interface OperationPrice {
  /** Per-call x402 price. */
  x402: TierPrices
  /** Debit from a live key's prepaid balance. */
  account: TierPrices
}

/**
 * Who may call an operation and what a sandbox key gets.
 * - `sandbox: 'mock'`: a sandbox key gets `mock(input)` at no charge; `'refuse'`: 403.
 * - `minTier`: customer keys below this tier get 403 (spec: older tier rule).
 * - `keyRequired`: the operation is free but needs an API key (usage, webhooks).
 */
export interface OperationAccess {
  sandbox: 'mock' | 'refuse'
  minTier?: 'free' | 'starter' | 'pro' | 'enterprise'
}

export interface OperationDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** MCP tool name (snake_case). */
  id: string
  http: { method: 'GET' | 'POST'; path: string }
  summary: string
  description?: string
  input: I
  output: O
  /** null: free operation (still needs a key unless public). */
  price: OperationPrice | null
  access: OperationAccess
  /** Deterministic mock for sandbox keys; required when access.sandbox is 'mock'. */
  mock?: (input: z.infer<I>) => z.infer<O>
  run: (input: z.infer<I>, ctx: OperationContext) => Promise<z.infer<O>>
}

export type AnyOperation = OperationDefinition<z.ZodType, z.ZodType>

/** Declares an operation once; HTTP routes, MCP tools and the OpenAPI document are generated from it. */
export function defineOperation<I extends z.ZodType, O extends z.ZodType>(
  definition: OperationDefinition<I, O>,
): OperationDefinition<I, O> {
  if (definition.access.sandbox === 'mock' && !definition.mock) {
    throw new Error(`operation ${definition.id}: sandbox 'mock' needs a mock()`)
  }
  return definition
}

/** The price an operation charges for a quality tier (missing tiers charge fresh). */
export function priceFor(prices: TierPrices, quality: Quality): Micros {
  return prices[quality] ?? prices.fresh
}
