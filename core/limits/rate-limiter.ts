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
import { addressSubjectOf, mailboxOf } from './signup-subjects.ts'

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

/**
 * A PostgreSQL array literal for one bound parameter (drizzle spreads a JS array into a list of
 * parameters): numbers as they are, text quoted with `\` and `"` escaped.
 */
function pgArray(values: readonly (string | number)[]): string {
  const items = values.map((value) =>
    typeof value === 'number' ? String(value) : `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`,
  )
  return `{${items.join(',')}}`
}

function toNumbers(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number)
  if (typeof value === 'string') {
    return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number)
  }
  return []
}

/**
 * The admission statement for several subjects at once (one row each), one text for any batch
 * size (the rows come as arrays), so it is parsed and planned once per connection as a prepared
 * statement: one INSERT ... ON CONFLICT DO UPDATE. PostgreSQL locks each conflicting row and
 * computes the SET list on its latest version, so concurrent statements of any number of processes
 * never count past a limit. Per row it moves the windows to now, lets through as many of the
 * requested calls as every window still allows, and counts only those (a refused call uses up
 * nothing).
 */
export const ADMISSION_SQL = `insert into rate_limit_counters as c
      (subject, minute_no, minute_count, hour_no, hour_counts, month_no, month_count,
       per_minute, per_day, per_month, requested, granted)
    select r.subject, r.minute_no, r.first, r.hour_no, array_fill(0, array[23]) || r.first,
      r.month_no, r.first, r.per_minute, r.per_day, r.per_month, r.requested, r.first
    from unnest($1::text[], $2::bigint[], $3::bigint[], $4::int[], $5::int[], $6::int[],
      $7::int[], $8::int[], $9::int[])
      as r(subject, minute_no, hour_no, month_no, per_minute, per_day, per_month, requested, first)
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

/** The nine array parameters of ADMISSION_SQL. */
function admissionParams(
  rows: readonly { subject: string; requested: number; limits: TierLimits; at: Date }[],
): string[] {
  const column = (pick: (row: (typeof rows)[number]) => number) => pgArray(rows.map(pick))
  const windows = rows.map((row) => windowsOf(row.at))
  const first = rows.map(({ requested, limits }) =>
    Math.max(
      0,
      Math.min(requested, sqlLimit(limits.perMinute), sqlLimit(limits.perDay), sqlLimit(limits.perMonth)),
    ),
  )
  return [
    pgArray(rows.map((row) => row.subject)),
    pgArray(windows.map((w) => w.minuteNo)),
    pgArray(windows.map((w) => w.hourNo)),
    pgArray(windows.map((w) => w.monthNo)),
    column((row) => sqlLimit(row.limits.perMinute)),
    column((row) => sqlLimit(row.limits.perDay)),
    column((row) => sqlLimit(row.limits.perMonth)),
    column((row) => row.requested),
    pgArray(first),
  ]
}

/** A statement written with `$n` parameters as a drizzle SQL value (for `db.execute`). */
function withParams(text: string, params: readonly unknown[]): SQL {
  const parts = text.split(/\$(\d+)/)
  return sql.join(
    parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`)),
    sql``,
  )
}

/** Runs a statement with `$n` parameters and returns its rows (Database.executePrepared). */
export type ExecuteStatement = (
  text: string,
  params: readonly unknown[],
) => Promise<Record<string, unknown>[]>

function rowOf(raw: Record<string, unknown>): CounterRow {
  return {
    minuteNo: Number(raw.minute_no),
    minuteCount: Number(raw.minute_count),
    hourNo: Number(raw.hour_no),
    hourCounts: toNumbers(raw.hour_counts),
    monthNo: Number(raw.month_no),
    monthCount: Number(raw.month_count),
  }
}

/** Where admissions are counted: `take` one call, `flush` what is not yet written, `close`. */
export interface CounterStore {
  take(request: TakeRequest): Promise<TakeResult>
  flush(): Promise<void>
  /** Forgets in-memory counters with nothing left to count at `at`. */
  prune(at: Date): void
  close(): Promise<void>
}

/** Groups a batch's requests by subject, in arrival order. */
function bySubjectOf(requests: readonly TakeRequest[]): Map<string, TakeRequest[]> {
  const bySubject = new Map<string, TakeRequest[]>()
  for (const request of requests) {
    const list = bySubject.get(request.subject)
    if (list) list.push(request)
    else bySubject.set(request.subject, [request])
  }
  return bySubject
}

/**
 * Shared counters in the database (PostgreSQL, any number of processes): concurrent calls of one
 * event-loop turn go out as one statement (core/store/batcher.ts), so the limiter adds at most one
 * round trip to a call, and exactly one statement per batch.
 */
export function createSharedCounterStore(
  db: Db,
  execute: ExecuteStatement = async (text, params) =>
    rowsOf<Record<string, unknown>>(await db.execute(withParams(text, params))),
): CounterStore {
  const take = createBatcher<TakeRequest, TakeResult>(async (requests) => {
    const bySubject = bySubjectOf(requests)
    // Sorted subjects: two processes' statements lock shared rows in the same order (no deadlock).
    const subjects = [...bySubject.keys()].sort()
    const statementRows = subjects.map((subject) => {
      const group = bySubject.get(subject) as TakeRequest[]
      const first = group[0] as TakeRequest
      return { subject, requested: group.length, limits: first.limits, at: first.at }
    })
    const returned = await execute(ADMISSION_SQL, admissionParams(statementRows))
    const results = new Map<string, { row: CounterRow; granted: number; next: number }>()
    for (const raw of returned) {
      results.set(String(raw.subject), { row: rowOf(raw), granted: Number(raw.granted), next: 0 })
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
  return { take, flush: async () => {}, prune: () => {}, close: async () => {} }
}

/** A counter row moved to the windows of `at` (what the SQL statement does, in JavaScript). */
export function advanceRow(row: CounterRow, at: Date): CounterRow {
  const { minuteNo, hourNo, monthNo } = windowsOf(at)
  const shift = hourNo - row.hourNo
  const hourCounts =
    shift <= 0
      ? row.hourCounts
      : shift >= HOUR_SLOTS
        ? new Array<number>(HOUR_SLOTS).fill(0)
        : [...row.hourCounts.slice(shift), ...new Array<number>(shift).fill(0)]
  return {
    minuteNo: Math.max(row.minuteNo, minuteNo),
    minuteCount: row.minuteNo >= minuteNo ? row.minuteCount : 0,
    hourNo: Math.max(row.hourNo, hourNo),
    hourCounts,
    monthNo: Math.max(row.monthNo, monthNo),
    monthCount: row.monthNo >= monthNo ? row.monthCount : 0,
  }
}

/**
 * Counters of an embedded database (PGlite: one process per database, so this process sees every
 * call): held in memory and exact, loaded from `rate_limit_counters` on a subject's first call and
 * written back every `flushMs` (and on close). No statement on the hot path; a crash forgets at
 * most the last `flushMs` of counts.
 */
export function createEmbeddedCounterStore(db: Db, flushMs = 1000): CounterStore {
  const rows = new Map<string, CounterRow>()
  const loading = new Map<string, Promise<void>>()
  const dirty = new Set<string>()
  let flushing: Promise<void> = Promise.resolve()

  async function load(subject: string): Promise<void> {
    if (rows.has(subject)) return
    let pending = loading.get(subject)
    if (!pending) {
      pending = (async () => {
        const [raw] = rowsOf<Record<string, unknown>>(
          await db.execute(sql`select minute_no, minute_count, hour_no, hour_counts, month_no, month_count
            from rate_limit_counters where subject = ${subject}`),
        )
        if (!rows.has(subject)) {
          rows.set(
            subject,
            raw
              ? rowOf(raw)
              : {
                  minuteNo: 0,
                  minuteCount: 0,
                  hourNo: 0,
                  hourCounts: new Array<number>(HOUR_SLOTS).fill(0),
                  monthNo: 0,
                  monthCount: 0,
                },
          )
        }
      })().finally(() => loading.delete(subject))
      loading.set(subject, pending)
    }
    await pending
  }

  async function writeDirty(): Promise<void> {
    const subjects = [...dirty].sort()
    dirty.clear()
    if (subjects.length === 0) return
    const values = subjects.map((subject) => {
      const row = rows.get(subject) as CounterRow
      return sql`(${subject}, ${row.minuteNo}::bigint, ${row.minuteCount}::int, ${row.hourNo}::bigint,
        ${pgArray(row.hourCounts)}::int[], ${row.monthNo}::int, ${row.monthCount}::int, 0, 0, 0, 0, 0)`
    })
    try {
      await db.execute(sql`insert into rate_limit_counters as c
          (subject, minute_no, minute_count, hour_no, hour_counts, month_no, month_count,
           per_minute, per_day, per_month, requested, granted)
        values ${sql.join(values, sql`, `)}
        on conflict (subject) do update set minute_no = excluded.minute_no, minute_count = excluded.minute_count,
          hour_no = excluded.hour_no, hour_counts = excluded.hour_counts,
          month_no = excluded.month_no, month_count = excluded.month_count`)
    } catch (error) {
      for (const subject of subjects) dirty.add(subject)
      throw error
    }
  }

  const flush = (): Promise<void> => {
    flushing = flushing.then(writeDirty, writeDirty)
    return flushing
  }
  const timer = setInterval(() => {
    flush().catch(() => {})
  }, flushMs)
  timer.unref()

  return {
    async take(request) {
      await load(request.subject)
      const { limits } = request
      const row = advanceRow(rows.get(request.subject) as CounterRow, request.at)
      const day = row.hourCounts.reduce((total, value) => total + value, 0)
      const admitted =
        row.minuteCount < limits.perMinute && day < limits.perDay && row.monthCount < limits.perMonth
      if (admitted) {
        row.minuteCount++
        row.monthCount++
        row.hourCounts = [
          ...row.hourCounts.slice(0, HOUR_SLOTS - 1),
          (row.hourCounts[HOUR_SLOTS - 1] ?? 0) + 1,
        ]
        dirty.add(request.subject)
      }
      rows.set(request.subject, row)
      return {
        admitted,
        row: { ...row, hourCounts: [...row.hourCounts] },
        position: 1,
        granted: admitted ? 1 : 0,
      }
    },
    flush,
    prune(at) {
      for (const [subject, row] of rows) {
        if (!dirty.has(subject) && idle(row, subject, at)) rows.delete(subject)
      }
    },
    async close() {
      clearInterval(timer)
      await flush()
    },
  }
}

/**
 * Subjects limited per day or month (keys, key creation): their rows stay until every window is
 * over. Payer and challenge rows count per minute only.
 */
const LONG_LIVED_PREFIXES = ['key:', 'signup-address:', 'signup-email:'] as const
const keepsDays = (subject: string): boolean =>
  LONG_LIVED_PREFIXES.some((prefix) => subject.startsWith(prefix))

/** Drops in-memory counters with nothing left to count (the same rule as the table's sweep). */
function idle(row: CounterRow, subject: string, at: Date): boolean {
  const { minuteNo, hourNo, monthNo } = windowsOf(at)
  if (row.minuteNo >= minuteNo) return false
  return !keepsDays(subject) || (row.hourNo <= hourNo - HOUR_SLOTS && row.monthNo < monthNo)
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
  /**
   * `pglite`: one process owns the database, so counters are kept in memory (exact) and written
   * back every second; `postgres` (default): every admission is one shared statement.
   */
  kind?: 'pglite' | 'postgres'
  /** Runs the admission statement as a prepared statement (Database.executePrepared); default db.execute. */
  execute?: ExecuteStatement
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
   * Counts one self-service key creation: first against the client address (an IPv6 address by
   * its /64; skipped when unknown, as for in-process calls), then against the normalised e-mail
   * (mailboxOf), or throws RateLimitedError naming the limit. An address refused never counts
   * against the e-mail, so one address cannot use up other people's e-mail allowance; an attempt
   * the e-mail limit refuses still counts against its address.
   */
  admitSignup(clientAddress: string | undefined, email: string): Promise<RateLimitState>
  /**
   * Deletes counters with nothing left to count: payer and IP rows idle for a minute, key rows
   * whose minute, 24 hours and month are all over. Returns how many rows went.
   */
  sweep(): Promise<number>
  /** Writes what is only in memory (PGlite) and stops the write-back timer. */
  close(): Promise<void>
}

/** The limiter over shared database counters (spec: Limits; DESIGN: rate-limit counters are shared). */
export function createRateLimiter({ db, clock, policy, kind, execute }: RateLimiterOptions): RateLimiter {
  const store = kind === 'pglite' ? createEmbeddedCounterStore(db) : createSharedCounterStore(db, execute)
  const take = store.take

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
