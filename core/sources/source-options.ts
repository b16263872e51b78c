import { type Clock, systemClock } from '../context.ts'
import { type CircuitBreaker, type CircuitBreakerOptions, createCircuitBreaker } from './circuit-breaker.ts'
import type { FetchLike } from './http-json.ts'

/** Breaker settings, or a ready breaker to share (e.g. one exposed on a health page). */
export type BreakerSetting = Omit<CircuitBreakerOptions, 'clock'> | CircuitBreaker

/** Options every upstream client takes (no process.env: the composition root passes them). */
export interface SourceClientOptions {
  /** Timeout for one call, end to end. Default 5000 ms. */
  timeoutMs?: number
  clock?: Clock
  breaker?: BreakerSetting
  /** Replaces global fetch (HTTP adapters only). */
  fetch?: FetchLike
}

export const DEFAULT_TIMEOUT_MS = 5000

/** A breaker from settings (bound to the client's clock), or the shared breaker passed in. */
export function resolveBreaker(setting: BreakerSetting | undefined, clock: Clock): CircuitBreaker {
  if (setting && 'tryAcquire' in setting) return setting
  return createCircuitBreaker({ ...setting, clock })
}

/** Fills in the defaults every client shares: system clock, 5 s timeout, own breaker, global fetch. */
export function resolveCommon(options: SourceClientOptions) {
  const clock = options.clock ?? systemClock
  return {
    clock,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    breaker: resolveBreaker(options.breaker, clock),
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
  }
}
