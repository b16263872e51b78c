import type { Clock } from '../../../core/context.ts'

export interface ManualClock extends Clock {
  /** Moves time forward by `ms`. */
  advance(ms: number): void
  set(date: Date): void
}

/** A clock tests move by hand (circuit breaker cool-downs, domain ages, certificate expiry). */
export function createManualClock(start: Date | string = '2025-06-01T12:00:00.000Z'): ManualClock {
  let now = new Date(start).getTime()
  return {
    now: () => new Date(now),
    advance(ms) {
      now += ms
    },
    set(date) {
      now = date.getTime()
    },
  }
}
