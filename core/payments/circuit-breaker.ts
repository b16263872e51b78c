import type { Clock } from '../context.ts'

export type CircuitState = 'closed' | 'open' | 'half_open'

/** Stops calling a failing dependency for a while, then lets one trial call through. */
export interface CircuitBreaker {
  /** True when a call may be made now (in half-open state: only the one trial call). */
  allow(): boolean
  recordSuccess(): void
  recordFailure(): void
  state(): CircuitState
}

export interface CircuitBreakerOptions {
  clock: Clock
  /** Consecutive failures that open the circuit (default 3). */
  failureThreshold?: number
  /** How long the circuit stays open before one trial call (default 30 s). */
  resetAfterMs?: number
}

/**
 * A small consecutive-failure circuit breaker (spec: Errors, 503 with circuit breaker open;
 * x402 details, `X-Payment-Fallback` when the fallback was used).
 */
export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const threshold = options.failureThreshold ?? 3
  const resetAfterMs = options.resetAfterMs ?? 30_000
  let failures = 0
  let openedAt: number | undefined
  let trialInFlight = false

  const state = (): CircuitState => {
    if (openedAt === undefined) return 'closed'
    return options.clock.now().getTime() - openedAt >= resetAfterMs ? 'half_open' : 'open'
  }

  return {
    allow() {
      const current = state()
      if (current === 'closed') return true
      if (current === 'open' || trialInFlight) return false
      trialInFlight = true
      return true
    },
    recordSuccess() {
      failures = 0
      openedAt = undefined
      trialInFlight = false
    },
    recordFailure() {
      failures += 1
      trialInFlight = false
      if (openedAt !== undefined || failures >= threshold) openedAt = options.clock.now().getTime()
    },
    state,
  }
}
