import type { Clock } from '../context.ts'

export type CircuitState = 'closed' | 'open' | 'half_open'

/**
 * What the breaker measured of its upstream's recent calls (GET /v1/providers): the circuit, the
 * last success, the last failure with its reason, and the calls of the recent window.
 */
export interface CallHealth {
  state: CircuitState
  last_success_at: Date | null
  last_failure: { at: Date; reason: string } | null
  /** Calls that reported back within the window (at most the last 100). */
  recent_calls: number
  recent_failures: number
  /** The window the recent counts cover, in milliseconds. */
  window_ms: number
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 5. */
  failureThreshold?: number
  /** How far back `health()` counts calls. Default 15 minutes. */
  healthWindowMs?: number
  /** How long the circuit stays open before one trial call is let through. Default 30 s. */
  coolDownMs?: number
  /** Injected clock (tests move time by hand). */
  clock: Clock
}

export interface CircuitBreaker {
  /** Current state, with an open circuit turning half-open once the cool-down has passed. */
  state(): CircuitState
  /**
   * Asks to make one call. `false` means short-circuit it. In half-open state exactly one
   * trial call is admitted until it reports back.
   */
  tryAcquire(): boolean
  /** The admitted call succeeded (a not-found answer is a success). */
  recordSuccess(): void
  /** The admitted call failed because of upstream trouble (`reason`: why, for the provider list). */
  recordFailure(reason?: string): void
  /**
   * The admitted call ended in a way that says nothing about the upstream's health (e.g. the
   * target was refused by the SSRF guard before any request); frees a half-open trial slot.
   */
  release(): void
  /** The measured health of the upstream: circuit, last success, last failure, recent error rate. */
  health(): CallHealth
}

/**
 * One breaker per upstream (DESIGN "Upstream sources": a circuit breaker per source), so a
 * dead upstream costs nothing after `failureThreshold` consecutive failures instead of a full
 * timeout on every entity check. Closed -> open after the threshold; open -> half-open after
 * the cool-down; half-open lets one trial through: success closes, failure reopens.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const threshold = options.failureThreshold ?? 5
  const coolDownMs = options.coolDownMs ?? 30_000
  const { clock } = options
  if (!Number.isInteger(threshold) || threshold < 1) throw new RangeError('failureThreshold must be >= 1')
  if (!(coolDownMs >= 0)) throw new RangeError('coolDownMs must be >= 0')

  let state: CircuitState = 'closed'
  let failures = 0
  let openedAt = 0
  let trialInFlight = false
  const windowMs = options.healthWindowMs ?? 15 * 60_000
  let lastSuccessAt: Date | null = null
  let lastFailure: { at: Date; reason: string } | null = null
  /** The latest calls' outcomes (time, ok), oldest first, at most 100. */
  const recent: { at: number; ok: boolean }[] = []
  const note = (ok: boolean) => {
    recent.push({ at: clock.now().getTime(), ok })
    if (recent.length > 100) recent.shift()
  }

  const current = (): CircuitState => {
    if (state === 'open' && clock.now().getTime() - openedAt >= coolDownMs) {
      state = 'half_open'
      trialInFlight = false
    }
    return state
  }

  const open = () => {
    state = 'open'
    openedAt = clock.now().getTime()
    trialInFlight = false
  }

  return {
    state: current,
    tryAcquire() {
      const s = current()
      if (s === 'closed') return true
      if (s === 'open') return false
      if (trialInFlight) return false
      trialInFlight = true
      return true
    },
    recordSuccess() {
      failures = 0
      state = 'closed'
      trialInFlight = false
      lastSuccessAt = clock.now()
      note(true)
    },
    release() {
      trialInFlight = false
    },
    recordFailure(reason = 'upstream_error') {
      lastFailure = { at: clock.now(), reason }
      note(false)
      if (current() === 'half_open') {
        open()
        return
      }
      failures += 1
      if (failures >= threshold) open()
    },
    health() {
      const since = clock.now().getTime() - windowMs
      const calls = recent.filter((call) => call.at >= since)
      return {
        state: current(),
        last_success_at: lastSuccessAt,
        last_failure: lastFailure,
        recent_calls: calls.length,
        recent_failures: calls.filter((call) => !call.ok).length,
        window_ms: windowMs,
      }
    },
  }
}
