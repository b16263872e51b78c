import { type SQL, sql } from 'drizzle-orm'
import type { Caller, Clock } from '../context.ts'
import { createBatcher } from '../store/batcher.ts'
import { type Db, rowsOf } from '../store/database.ts'
import {
  RateLimitedError,
  type RateLimitPolicy,
  type RateLimitState,
  type RateLimitWindow,
  type TierLimits,
} from './rate-limits.ts'

/** What the SQL needs for "no limit": the largest integer column value. */
const NO_LIMIT = 2_147_483_647
const HOUR_SLOTS = 24

/** The counters of one subject after an admission statement. */
export interface CounterRow {
  minuteNo: number
  minuteCount: number
  hourNo: number
  /** 24 hourly slots, the last one being `hourNo`. */
  hourCounts: number[]
  monthNo: number
  monthCount: number
}

/** One call asking to be counted. */
interface TakeRequest {
  subject: string
  limits: TierLimits
  at: Date
}

interface TakeResult {
  admitted: boolean
  row: CounterRow
  /** Admitted: this call's count in each window (1-based), for an exact Remaining. */
  position: number
  granted: number
}

/** Unix minute, hour and UTC month number (year * 12 + month index) of a moment. */
export function windowsOf(at: Date): { minuteNo: number; hourNo: number; monthNo: number } {
  const ms = at.getTime()
  return {
    minuteNo: Math.floor(ms / 60_000),
    hourNo: Math.floor(ms / 3_600_000),
    monthNo: at.getUTCFullYear() * 12 + at.getUTCMonth(),
  }
}

const sqlLimit = (value: number): number => (Number.isFinite(value) ? Math.min(value, NO_LIMIT) : NO_LIMIT)

function toNumbers(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number)
  if (typeof value === 'string') {
    return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number)
  }
  return []
}

/**
 * The admission statement for several subjects at once (one row each): one INSERT ... ON CONFLICT
 * DO UPDATE. PostgreSQL locks each conflicting row and computes the SET list on its latest version,
 * so concurrent statements of any number of processes never count past a limit. Per row it moves
 * the windows to now, lets through as many of the requested calls as every window still allows,
 * and counts only those (a refused call uses up nothing).
 */
function admissionStatement(
  rows: readonly { subject: string; requested: number; limits: TierLimits; at: Date }[],
): SQL {
  const values = rows.map(({ subject, requested, limits, at }) => {
    const { minuteNo, hourNo, monthNo } = windowsOf(at)
    const perMinute = sqlLimit(limits.perMinute)
    const perDay = sqlLimit(limits.perDay)
    const perMonth = sqlLimit(limits.perMonth)
    const first = Math.max(0, Math.min(requested, perMinute, perDay, perMonth))
    return sql`(${subject}, ${minuteNo}::bigint, ${first}::int, ${hourNo}::bigint,
      array_fill(0, array[23]) || ${first}::int, ${monthNo}::int, ${first}::int,
      ${perMinute}::int, ${perDay}::int, ${perMonth}::int, ${requested}::int, ${first}::int)`
  })
  return sql`insert into rate_limit_counters as c
      (subject, minute_no, minute_count, hour_no, hour_counts, month_no, month_count,
       per_minute, per_day, per_month, requested, granted)
    values ${sql.join(values, sql`, `)}
    on conflict (subject) do update set
      (minute_no, minute_count, hour_no, hour_counts, month_no, month_count,
       per_minute, per_day, per_month, requested, granted) = (
        select s.minute_no, s.minute_count + g.granted, s.hour_no,
          s.hour_counts[1:23] || (s.hour_counts[24] + g.granted),
          s.month_no, s.month_count + g.granted,
          excluded.per_minute, excluded.per_day, excluded.per_month, excluded.requested, g.granted
        from (
          select
            greatest(c.minute_no, excluded.minute_no) as minute_no,
            case when c.minute_no >= excluded.minute_no then c.minute_count else 0 end as minute_count,
            greatest(c.hour_no, excluded.hour_no) as hour_no,
            case
              when excluded.hour_no <= c.hour_no then c.hour_counts
              when excluded.hour_no - c.hour_no >= 24 then array_fill(0, array[24])
              else c.hour_counts[(excluded.hour_no - c.hour_no + 1)::int:24]
                || array_fill(0, array[(excluded.hour_no - c.hour_no)::int])
            end as hour_counts,
            greatest(c.month_no, excluded.month_no) as month_no,
            case when c.month_no >= excluded.month_no then c.month_count else 0 end as month_count
        ) s
        cross join lateral (
          select greatest(0, least(
            excluded.requested,
            excluded.per_minute - s.minute_count,
            excluded.per_day - (select coalesce(sum(x), 0) from unnest(s.hour_counts) as x),
            excluded.per_month - s.month_count
          ))::int as granted
        ) g
      )
    returning subject, minute_no, minute_count, hour_no, hour_counts, month_no, month_count, granted`
}

/**
 * Shared counters in the database: concurrent calls of one event-loop turn go out as one
 * statement (core/store/batcher.ts), so the limiter adds at most one round trip to a call.
 */
export function createCounterStore(db: Db): (request: TakeRequest) => Promise<TakeResult> {
  return createBatcher<TakeRequest, TakeResult>(async (requests) => {
    const bySubject = new Map<string, TakeRequest[]>()
    for (const request of requests) {
      const list = bySubject.get(request.subject)
      if (list) list.push(request)
      else bySubject.set(request.subject, [request])
    }
    // Sorted subjects: two processes' statements lock shared rows in the same order (no deadlock).
    const subjects = [...bySubject.keys()].sort()
    const statementRows = subjects.map((subject) => {
      const group = bySubject.get(subject) as TakeRequest[]
      const first = group[0] as TakeRequest
      return { subject, requested: group.length, limits: first.limits, at: first.at }
    })
    const returned = rowsOf<Record<string, unknown>>(await db.execute(admissionStatement(statementRows)))
    const results = new Map<string, { row: CounterRow; granted: number; next: number }>()
    for (const raw of returned) {
      results.set(String(raw.subject), {
        row: {
          minuteNo: Number(raw.minute_no),
          minuteCount: Number(raw.minute_count),
          hourNo: Number(raw.hour_no),
          hourCounts: toNumbers(raw.hour_counts),
          monthNo: Number(raw.month_no),
          monthCount: Number(raw.month_count),
        },
        granted: Number(raw.granted),
        next: 0,
      })
    }
    return requests.map((request) => {
      const result = results.get(request.subject)
      if (!result) throw new Error(`rate limit: no counter row returned for ${request.subject}`)
      // The first `granted` calls of a subject, in arrival order, are let through.
      const index = result.next++
      return {
        admitted: index < result.granted,
        row: result.row,
        position: index + 1,
        granted: result.granted,
      }
    })
  })
}

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

export interface RateLimiterOptions {
  db: Db
  clock: Clock
  policy: RateLimitPolicy
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
  admit(caller: Caller): Promise<RateLimitState | undefined>
  /** Counts one 402 challenge sent to a caller with neither key nor verified payment, by client IP. */
  admitChallenge(clientAddress: string | undefined): Promise<RateLimitState | undefined>
  /**
   * Deletes counters with nothing left to count: payer and IP rows idle for a minute, key rows
   * whose minute, 24 hours and month are all over. Returns how many rows went.
   */
  sweep(): Promise<number>
}

/** The limiter over shared database counters (spec: Limits; DESIGN: rate-limit counters are shared). */
export function createRateLimiter({ db, clock, policy }: RateLimiterOptions): RateLimiter {
  const take = createCounterStore(db)

  async function count(subject: string, limits: TierLimits, who: string): Promise<RateLimitState> {
    const at = clock.now()
    const result = await take({ subject, limits, at })
    const nowSeconds = at.getTime() / 1000
    if (!result.admitted) {
      const states = windowStates(result.row, limits, 0)
      const refused =
        states.find((state) => state.used >= state.limit) ?? (states[0] as (typeof states)[number])
      const retryAfter = Math.max(1, Math.ceil(refused.reset - nowSeconds))
      const state: RateLimitState = {
        window: refused.window,
        limit: refused.limit,
        remaining: 0,
        reset: Math.ceil(refused.reset),
      }
      throw new RateLimitedError(
        refusalMessage(refused.window, refused.limit, who, retryAfter),
        state,
        retryAfter,
      )
    }
    const states = windowStates(result.row, limits, result.granted - result.position)
    let tightest: RateLimitState | undefined
    for (const state of states) {
      const remaining = Math.max(0, state.limit - state.used)
      if (!tightest || remaining < tightest.remaining) {
        tightest = { window: state.window, limit: state.limit, remaining, reset: Math.ceil(state.reset) }
      }
    }
    return (
      tightest ?? { window: 'minute', limit: NO_LIMIT, remaining: NO_LIMIT, reset: Math.ceil(nowSeconds) }
    )
  }

  return {
    async sweep() {
      const { minuteNo, hourNo, monthNo } = windowsOf(clock.now())
      const deleted = rowsOf<{ subject: string }>(
        await db.execute(sql`delete from rate_limit_counters
          where minute_no < ${minuteNo}::bigint
            and (subject not like 'key:%'
              or (hour_no <= ${hourNo - HOUR_SLOTS}::bigint and month_no < ${monthNo}::int))
          returning subject`),
      )
      return deleted.length
    },
    async admit(caller) {
      const target = subjectOf(caller, policy)
      if (!target) return undefined
      return count(target.subject, target.limits, target.who)
    },
    async admitChallenge(clientAddress) {
      if (!clientAddress) return undefined
      return count(
        `ip:${clientAddress}`,
        {
          perMinute: policy.challengesPerMinute,
          perDay: Number.POSITIVE_INFINITY,
          perMonth: Number.POSITIVE_INFINITY,
        },
        'payment challenges from one address',
      )
    },
  }
}
