import type { Clock } from '../context.ts'
import { RateLimitedError, type RateLimitState } from './rate-limit-policy.ts'

/**
 * The limit on 402 challenges to callers with neither key nor verified payment, per client IP
 * (spec: Limits). It counts only challenges that no valid payment followed: the x402 flow is
 * one challenge, then the same call paid, so each verified payment from an address takes one
 * challenge back off that address's count. A paying agent, or many agents behind one NAT
 * address that pay for what they ask, are never refused a challenge; an address that only
 * collects challenges is refused past the limit.
 *
 * Held in memory, per process: a challenge writes nothing to the database (it is the cheapest
 * answer the service gives, and must stay so under a flood). With several processes behind a
 * load balancer each counts its own share, so the limit an address meets is per process.
 */
export interface ChallengeLimiter {
  /** Counts one challenge to `address`, or throws RateLimitedError past the limit. */
  admit(address: string): RateLimitState
  /** A valid payment came from `address`: one of its challenges was answered, so it no longer counts. */
  paid(address: string): void
}

interface Count {
  minuteNo: number
  unpaid: number
}

/** Addresses counted in one process before the oldest minute's are dropped at once. */
const MAX_ADDRESSES = 100_000

export function createChallengeLimiter(perMinute: number, clock: Clock): ChallengeLimiter {
  let counts = new Map<string, Count>()
  const minuteOf = (at: Date) => Math.floor(at.getTime() / 60_000)
  const current = (address: string, minuteNo: number): Count => {
    const count = counts.get(address)
    if (count && count.minuteNo === minuteNo) return count
    if (!count && counts.size >= MAX_ADDRESSES) {
      // Bounded memory under a spread flood: keep only this minute's counts.
      counts = new Map([...counts].filter(([, kept]) => kept.minuteNo === minuteNo))
    }
    const fresh = { minuteNo, unpaid: 0 }
    counts.set(address, fresh)
    return fresh
  }
  return {
    admit(address) {
      const nowMs = clock.now().getTime()
      const minuteNo = Math.floor(nowMs / 60_000)
      const count = current(address, minuteNo)
      const reset = (minuteNo + 1) * 60
      if (count.unpaid >= perMinute) {
        const state: RateLimitState = { window: 'minute', limit: perMinute, remaining: 0, reset }
        const retryAfter = Math.max(1, Math.ceil(reset - nowMs / 1000))
        throw new RateLimitedError(
          `rate limit exceeded: ${perMinute} unpaid payment challenges per minute for one address; pay for a call, or retry in ${retryAfter} s`,
          state,
          retryAfter,
        )
      }
      count.unpaid++
      return { window: 'minute', limit: perMinute, remaining: perMinute - count.unpaid, reset }
    },
    paid(address) {
      const count = counts.get(address)
      if (count && count.minuteNo === minuteOf(clock.now()) && count.unpaid > 0) count.unpaid--
    },
  }
}
