import { createBatcher } from '../store/batcher.ts'
import { type Db, executePrepared } from '../store/database.ts'
import {
  type CounterRow,
  type CounterStore,
  pgArray,
  rowOf,
  sqlLimit,
  type TakeRequest,
  type TakeResult,
  windowsOf,
} from './counter-row.ts'
import type { TierLimits } from './rate-limit-policy.ts'

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
export function createSharedCounterStore(db: Db): CounterStore {
  const take = createBatcher<TakeRequest, TakeResult>(async (requests) => {
    const bySubject = bySubjectOf(requests)
    // Sorted subjects: two processes' statements lock shared rows in the same order (no deadlock).
    const subjects = [...bySubject.keys()].sort()
    const statementRows = subjects.map((subject) => {
      const group = bySubject.get(subject) as TakeRequest[]
      const first = group[0] as TakeRequest
      return { subject, requested: group.length, limits: first.limits, at: first.at }
    })
    const returned = await executePrepared(db, ADMISSION_SQL, admissionParams(statementRows))
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
