import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createChallengeLimiter } from './challenge-limiter.ts'
import { RateLimitedError } from './rate-limit-policy.ts'

const refused = (run: () => unknown): RateLimitedError => {
  try {
    run()
  } catch (error) {
    if (error instanceof RateLimitedError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('402 challenges per client address', () => {
  it('refuses an address past the limit of challenges no payment followed, with the minute window', () => {
    const clock = createManualClock('2026-03-10T10:00:20Z')
    const limiter = createChallengeLimiter(3, clock)
    expect(limiter.admit('203.0.113.7')).toMatchObject({ window: 'minute', limit: 3, remaining: 2 })
    limiter.admit('203.0.113.7')
    limiter.admit('203.0.113.7')
    const error = refused(() => limiter.admit('203.0.113.7'))
    expect(error.rateLimit).toMatchObject({ window: 'minute', limit: 3, remaining: 0 })
    expect(error.retryAfter).toBe(40)
    expect(error.message).toContain('3 unpaid payment challenges per minute')
    // Another address is counted apart; the next minute starts again.
    expect(limiter.admit('203.0.113.8').remaining).toBe(2)
    clock.advance(40_000)
    expect(limiter.admit('203.0.113.7').remaining).toBe(2)
  })

  it('never refuses an address whose challenges are followed by payments: 300 paid calls in a minute under a limit of 60', () => {
    const limiter = createChallengeLimiter(60, createManualClock('2026-03-10T10:00:00Z'))
    for (let call = 0; call < 300; call++) {
      limiter.admit('198.51.100.1') // the 402 the client meets first
      limiter.paid('198.51.100.1') // the same call, paid and verified
    }
    expect(limiter.admit('198.51.100.1').remaining).toBe(59)
  })

  it('many agents behind one address: the payers do not use up the limit of the one that only asks', () => {
    const limiter = createChallengeLimiter(5, createManualClock('2026-03-10T10:00:00Z'))
    for (let agent = 0; agent < 50; agent++) {
      limiter.admit('192.0.2.1')
      limiter.paid('192.0.2.1')
    }
    for (let unpaid = 0; unpaid < 5; unpaid++) limiter.admit('192.0.2.1')
    expect(refused(() => limiter.admit('192.0.2.1')).rateLimit.limit).toBe(5)
    // A payment gives one challenge back, never more than were counted.
    limiter.paid('192.0.2.1')
    limiter.admit('192.0.2.1')
    limiter.paid('192.0.2.9')
    expect(limiter.admit('192.0.2.9').remaining).toBe(4)
  })
})
