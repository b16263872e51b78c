import { sql } from 'drizzle-orm'
import type { Caller, Clock } from '../context.ts'
import { type Db, rowsOf } from '../store/database.ts'
import { createChallengeLimiter } from './challenge-limiter.ts'
import { type CounterRow, HOUR_SLOTS, NO_LIMIT, windowsOf } from './counter-row.ts'
import { createEmbeddedCounterStore } from './embedded-counter-store.ts'
import {
  RateLimitedError,
  type RateLimitPolicy,
  type RateLimitState,
  type RateLimitWindow,
  type TierLimits,
} from './rate-limit-policy.ts'
import { createSharedCounterStore } from './shared-counter-store.ts'
import { addressSubjectOf, mailboxOf } from './signup-subjects.ts'

/**
 * The limiter (spec: Limits): who a call counts against (a key by tier, an x402 payer, an
 * anonymous client's 402 challenges by IP), the counter store that counts it (shared in
 * PostgreSQL, or in memory for an embedded database), and the limit a response reports.
 */

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0)

/** Unix seconds of the first day of the month after `monthNo`, 00:00 UTC. */
function nextMonthStart(monthNo: number): number {
  const next = monthNo + 1
  return Date.UTC(Math.floor(next / 12), next % 12, 1) / 1000
}

/**
 * When the rolling day has room for one more call: the end of the slot by which `needed` counted
 * calls have left the window (a call counted in hour h leaves it when hour h + 24 begins).
 */
function dayReset(row: CounterRow, needed: number): number {
  let freed = 0
  for (let i = 0; i < row.hourCounts.length; i++) {
    freed += row.hourCounts[i] ?? 0
    if (freed >= needed) return (row.hourNo - (HOUR_SLOTS - 1) + i + HOUR_SLOTS) * 3600
  }
  return (row.hourNo + HOUR_SLOTS) * 3600
}

/** Counts of each window after a statement, and where each resets. */
function windowStates(
  row: CounterRow,
  limits: TierLimits,
  countedBefore: number,
): { window: RateLimitWindow; limit: number; used: number; reset: number }[] {
  const day = sum(row.hourCounts)
  // For an admitted call, the counts as they stood right after this call (not after its batch).
  const backlog = countedBefore
  const states = [
    {
      window: 'minute' as const,
      limit: limits.perMinute,
      used: row.minuteCount - backlog,
      reset: (row.minuteNo + 1) * 60,
    },
    {
      window: 'day' as const,
      limit: limits.perDay,
      used: day - backlog,
      reset: dayReset(row, Math.max(1, day - limits.perDay + 1)),
    },
    {
      window: 'month' as const,
      limit: limits.perMonth,
      used: row.monthCount - backlog,
      reset: nextMonthStart(row.monthNo),
    },
  ]
  return states.filter((state) => Number.isFinite(state.limit))
}

/** The 429 of a refused call: the window that refused it, and when it has room again. */
function refusal(row: CounterRow, limits: TierLimits, who: string, nowSeconds: number): RateLimitedError {
  const states = windowStates(row, limits, 0)
  const refused = states.find((state) => state.used >= state.limit) ?? (states[0] as (typeof states)[number])
  const retryAfter = Math.max(1, Math.ceil(refused.reset - nowSeconds))
  const state: RateLimitState = {
    window: refused.window,
    limit: refused.limit,
    remaining: 0,
    reset: Math.ceil(refused.reset),
  }
  return new RateLimitedError(
    refusalMessage(refused.window, refused.limit, who, retryAfter),
    state,
    retryAfter,
  )
}

/** The limit an admitted call reports: the window with the fewest calls left. */
function tightestState(states: ReturnType<typeof windowStates>, nowSeconds: number): RateLimitState {
  let tightest: RateLimitState | undefined
  for (const state of states) {
    const remaining = Math.max(0, state.limit - state.used)
    if (!tightest || remaining < tightest.remaining) {
      tightest = { window: state.window, limit: state.limit, remaining, reset: Math.ceil(state.reset) }
    }
  }
  return tightest ?? { window: 'minute', limit: NO_LIMIT, remaining: NO_LIMIT, reset: Math.ceil(nowSeconds) }
}

export interface RateLimiterOptions {
  db: Db
  clock: Clock
  policy: RateLimitPolicy
  /**
   * `pglite`: one process owns the database, so counters are kept in memory (exact) and written
   * back every second; `postgres` (default): every admission is one shared statement.
   */
  kind?: 'pglite' | 'postgres'
}

/** Who a limit applies to, and with which numbers; undefined: not limited (the operator, nobody). */
function subjectOf(caller: Caller, policy: RateLimitPolicy) {
  if (caller.kind === 'key') {
    if (caller.role === 'admin') return undefined
    return {
      subject: `key:${caller.keyId}`,
      limits: policy.tiers[caller.tier],
      who: `the ${caller.tier} tier`,
    }
  }
  if (caller.kind === 'x402') {
    // EVM addresses are case-insensitive (checksummed or not, one payer); Solana's are not.
    const payer = caller.payer.startsWith('0x') ? caller.payer.toLowerCase() : caller.payer
    return {
      subject: `payer:${payer}`,
      limits: {
        perMinute: policy.x402PerMinute,
        perDay: Number.POSITIVE_INFINITY,
        perMonth: Number.POSITIVE_INFINITY,
      },
      who: 'an x402 payer',
    }
  }
  return undefined
}

function refusalMessage(window: RateLimitWindow, limit: number, who: string, retryAfter: number): string {
  if (window === 'minute') {
    return `rate limit exceeded: ${limit} calls per minute for ${who}; retry in ${retryAfter} s`
  }
  if (window === 'day') {
    return `daily limit exceeded: ${limit} calls per rolling 24 hours for ${who}; retry in ${retryAfter} s`
  }
  return `monthly cap exceeded: ${limit} calls per calendar month (UTC) for ${who}; it resets on the 1st`
}

export interface RateLimiter {
  /**
   * Counts one call of the payer (a key, or a verified x402 payer) before any money moves (spec:
   * Limits), or throws RateLimitedError. Returns the limit to report, or undefined when none applies
   * (the operator key).
   */
  admit(caller: Caller, clientAddress?: string): Promise<RateLimitState | undefined>
  /**
   * Counts one 402 challenge sent to a caller with neither key nor verified payment, by client IP
   * (in memory, challenge-limiter.ts): a verified x402 payer admitted from that address takes one
   * back, so only challenges never followed by a payment count.
   */
  admitChallenge(clientAddress: string | undefined): Promise<RateLimitState | undefined>
  /**
   * Counts one self-service key creation: first against the client address (an IPv6 address by
   * its /64; skipped when unknown, as for in-process calls), then against the normalised e-mail
   * (mailboxOf), or throws RateLimitedError naming the limit. An address refused never counts
   * against the e-mail, so one address cannot use up other people's e-mail allowance; an attempt
   * the e-mail limit refuses still counts against its address.
   */
  admitSignup(clientAddress: string | undefined, email: string): Promise<RateLimitState>
  /**
   * Deletes counters with nothing left to count: payer rows idle for a minute, key and key-creation rows
   * whose minute, 24 hours and month are all over. Returns how many rows went.
   */
  sweep(): Promise<number>
  /** Writes what is only in memory (PGlite) and stops the write-back timer. */
  close(): Promise<void>
}

/** The limiter over shared database counters (spec: Limits; DESIGN: rate-limit counters are shared). */
export function createRateLimiter({ db, clock, policy, kind }: RateLimiterOptions): RateLimiter {
  const store = kind === 'pglite' ? createEmbeddedCounterStore(db) : createSharedCounterStore(db)
  const challenges = createChallengeLimiter(policy.challengesPerMinute, clock)

  async function count(subject: string, limits: TierLimits, who: string): Promise<RateLimitState> {
    const at = clock.now()
    const result = await store.take({ subject, limits, at })
    const nowSeconds = at.getTime() / 1000
    if (!result.admitted) throw refusal(result.row, limits, who, nowSeconds)
    return tightestState(windowStates(result.row, limits, result.granted - result.position), nowSeconds)
  }

  return {
    close: () => store.close(),
    async sweep() {
      const now = clock.now()
      await store.flush()
      store.prune(now)
      const { minuteNo, hourNo, monthNo } = windowsOf(now)
      const deleted = rowsOf<{ subject: string }>(
        await db.execute(sql`delete from rate_limit_counters
          where minute_no < ${minuteNo}::bigint
            and (subject not like 'key:%' and subject not like 'signup-%'
              or (hour_no <= ${hourNo - HOUR_SLOTS}::bigint and month_no < ${monthNo}::int))
          returning subject`),
      )
      return deleted.length
    },
    async admit(caller, clientAddress) {
      const target = subjectOf(caller, policy)
      if (!target) return undefined
      const state = await count(target.subject, target.limits, target.who)
      if (caller.kind === 'x402' && clientAddress) challenges.paid(clientAddress)
      return state
    },
    async admitChallenge(clientAddress) {
      if (!clientAddress) return undefined
      return challenges.admit(clientAddress)
    },
    async admitSignup(clientAddress, email) {
      const { perAddress, perEmail } = policy.signups
      const byAddress = clientAddress
        ? await count(
            `signup-address:${addressSubjectOf(clientAddress)}`,
            perAddress,
            'key creations from one client address',
          )
        : undefined
      const byEmail = await count(
        `signup-email:${mailboxOf(email)}`,
        perEmail,
        'key creations for one e-mail',
      )
      return byAddress && byAddress.remaining < byEmail.remaining ? byAddress : byEmail
    },
  }
}
