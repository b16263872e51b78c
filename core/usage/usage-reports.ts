import { sql } from 'drizzle-orm'
import { MICROS_PER_USD } from '../money.ts'
import { type Db, rowsOf } from '../store/database.ts'
import type { UsageOutcome } from './usage-recorder.ts'

/** spec: GET /v1/usage/summary, pattern day|week|month. */
export type UsagePeriod = 'day' | 'week' | 'month'
export const USAGE_PERIODS: readonly UsagePeriod[] = ['day', 'week', 'month']

/** spec: Usage summary (plus the period's bounds and the exact cost in micro-USDC). */
export interface UsageSummary {
  period: UsagePeriod
  from: string
  to: string
  total_calls: number
  total_cost_usd: number
  total_cost_micros: number
  avg_latency_ms: number
  endpoint_counts: Record<string, number>
  calls_by_status: Record<string, number>
}

export interface UsageReports {
  /** The calling key's calls in the current UTC day, ISO week (from Monday) or calendar month. */
  summary(keyId: string, period: UsagePeriod, now: Date): Promise<UsageSummary>
  /** The calling key's calls per endpoint, all time. */
  endpoints(keyId: string): Promise<Record<string, number>>
}

export interface UsageReportsOptions {
  /** How reports name an operation (`POST /v1/entity/check`); the adapter knows the routes. */
  endpointOf(operationId: string): string
  /** The HTTP status a recorded outcome stands for (calls_by_status). */
  statusOf(outcome: UsageOutcome): number
}

/** The start of the period that contains `now`, in UTC (the monthly cap resets on the 1st too). */
export function periodStart(period: UsagePeriod, now: Date): Date {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  if (period === 'day') return new Date(day)
  if (period === 'month') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const sinceMonday = (now.getUTCDay() + 6) % 7
  return new Date(day - sinceMonday * 86_400_000)
}

const round = (value: number, digits: number): number => {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}

function add(counts: Record<string, number>, name: string, value: number): void {
  counts[name] = (counts[name] ?? 0) + value
}

/**
 * Usage reports from the hourly rollup (core/store/tables/usage.ts): a period costs one index range
 * of the key's (hour, operation, outcome) rows, however many calls it holds (spec: usage summary),
 * so a report stays fast on a large history.
 */
export function createUsageReports(db: Db, options: UsageReportsOptions): UsageReports {
  return {
    async summary(keyId, period, now) {
      const from = periodStart(period, now)
      const rows = rowsOf<Record<string, unknown>>(
        await db.execute(sql`select operation, outcome, sum(calls) as calls,
            sum(cost_micros) as cost, sum(latency_ms_sum) as latency
          from usage_rollups
          where key_id = ${keyId} and hour >= ${from.toISOString()}::timestamptz
          group by operation, outcome`),
      )
      let calls = 0
      let cost = 0n
      let latency = 0
      const endpointCounts: Record<string, number> = {}
      const byStatus: Record<string, number> = {}
      for (const row of rows) {
        const n = Number(row.calls)
        // An hour whose only call moved to `undelivered` keeps an empty `ok` row.
        if (n === 0) continue
        calls += n
        cost += BigInt(String(row.cost))
        latency += Number(row.latency)
        add(endpointCounts, options.endpointOf(String(row.operation)), n)
        add(byStatus, String(options.statusOf(String(row.outcome) as UsageOutcome)), n)
      }
      return {
        period,
        from: from.toISOString(),
        to: now.toISOString(),
        total_calls: calls,
        total_cost_usd: round(Number(cost) / Number(MICROS_PER_USD), 6),
        total_cost_micros: Number(cost),
        avg_latency_ms: calls === 0 ? 0 : round(latency / calls, 1),
        endpoint_counts: endpointCounts,
        calls_by_status: byStatus,
      }
    },
    async endpoints(keyId) {
      const rows = rowsOf<Record<string, unknown>>(
        await db.execute(sql`select operation, sum(calls) as calls
          from usage_rollups where key_id = ${keyId} group by operation`),
      )
      const counts: Record<string, number> = {}
      for (const row of rows) {
        if (Number(row.calls) > 0) add(counts, options.endpointOf(String(row.operation)), Number(row.calls))
      }
      return counts
    },
  }
}

/**
 * Builds the rollup from the usage log once, when the rollup is empty and the log is not (a
 * database from before the rollup existed). Under an exclusive lock on the rollup, so two
 * processes starting together never count a row twice, and calls recorded meanwhile wait.
 */
export async function backfillUsageRollups(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`lock table usage_rollups in exclusive mode`)
    const [state] = rowsOf<{ empty: boolean }>(
      await tx.execute(sql`select not exists (select 1 from usage_rollups) as empty`),
    )
    if (!state?.empty) return 0
    const inserted = rowsOf<{ n: unknown }>(
      await tx.execute(sql`with rolled as (
          insert into usage_rollups (key_id, hour, operation, outcome, calls, cost_micros, latency_ms_sum)
          select key_id, date_trunc('hour', created_at, 'UTC'), operation, outcome,
            count(*), sum(cost_micros), sum(latency_ms)
          from usage_events where key_id is not null
          group by 1, 2, 3, 4
          returning 1
        ) select count(*)::int as n from rolled`),
    )
    return Number(inserted[0]?.n ?? 0)
  })
}
