import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import type { Clock } from '../context.ts'
import { type Db, rowsOf } from '../store/database.ts'
import type { RetentionCategory } from './categories.ts'

export interface RetentionJobOptions {
  db: Db
  clock: Clock
  categories: readonly RetentionCategory[]
  /** Retention per category (resolveRetentionDays). */
  retentionDays: Readonly<Record<string, number>>
  /** Rows per DELETE statement. Default 1000. */
  batchSize?: number
  /** Pause between batches, so calls waiting for the database go first. Default 5 ms. */
  pauseMs?: number
  /** Time between passes. Default one hour. */
  intervalMs?: number
  log?: (level: 'info' | 'warn', message: string, extra?: unknown) => void
}

export interface RetentionPassReport {
  started_at: string
  deleted: Record<string, number>
  batches: number
}

export interface RetentionJob {
  /** One pass over every job-cleaned category now; resolves when done. */
  runOnce(): Promise<RetentionPassReport>
  /** Passes every interval (the first one after `firstDelayMs`, default 60 s). */
  start(firstDelayMs?: number): void
  stop(): Promise<void>
  /** When the next pass runs (the next cleanup of every job-cleaned category). */
  nextRunAt(): Date
  retentionDays(category: string): number
}

const DAY_MS = 86_400_000

/**
 * The retention job (spec: Data inventory, next_cleanup): deletes rows older than their
 * category's retention in bounded batches (`DELETE … WHERE ctid IN (SELECT … LIMIT n FOR UPDATE
 * SKIP LOCKED)`), pausing between batches so calls are never stuck behind one long statement.
 * Several processes on one PostgreSQL may run it at once: SKIP LOCKED keeps them off each
 * other's rows. Rows are judged by the injected clock, so tests move time by hand.
 */
export function createRetentionJob(options: RetentionJobOptions): RetentionJob {
  const { db, clock, categories } = options
  const batchSize = options.batchSize ?? 1000
  const pauseMs = options.pauseMs ?? 5
  const intervalMs = options.intervalMs ?? 3_600_000
  let timer: NodeJS.Timeout | undefined
  let running: Promise<RetentionPassReport> | undefined
  let stopped = false
  let nextRun = new Date(clock.now().getTime() + intervalMs)

  const daysOf = (category: string) => options.retentionDays[category] ?? 0

  async function deleteBatch(category: RetentionCategory, cutoff: Date): Promise<number> {
    const table = sql.identifier(category.table)
    const column = sql.identifier(category.timestampColumn)
    const extra = category.deletableWhere ? sql` and (${sql.raw(category.deletableWhere)})` : sql``
    const result = await db.execute(sql`
      delete from ${table}
       where ctid in (
         select ctid from ${table}
          where ${column} < ${cutoff.toISOString()}::timestamptz${extra}
          order by ${column}
          limit ${batchSize}
          for update skip locked)
      returning 1 as deleted`)
    return rowsOf(result).length
  }

  async function pass(): Promise<RetentionPassReport> {
    const now = clock.now()
    const report: RetentionPassReport = { started_at: now.toISOString(), deleted: {}, batches: 0 }
    for (const category of categories) {
      if (category.cleanup === 'owner') continue
      const days = daysOf(category.category)
      if (!(days > 0)) continue
      const cutoff = new Date(now.getTime() - days * DAY_MS)
      let total = 0
      for (;;) {
        if (stopped) break
        const deleted = await deleteBatch(category, cutoff)
        report.batches++
        total += deleted
        if (deleted < batchSize) break
        await sleep(pauseMs)
      }
      report.deleted[category.category] = total
    }
    const removed = Object.values(report.deleted).reduce((sum, count) => sum + count, 0)
    if (removed > 0) options.log?.('info', 'retention job deleted expired rows', report.deleted)
    return report
  }

  function runOnce(): Promise<RetentionPassReport> {
    if (!running) {
      running = pass().finally(() => {
        running = undefined
      })
    }
    return running
  }

  const schedule = (delayMs: number) => {
    if (stopped) return
    nextRun = new Date(clock.now().getTime() + delayMs)
    timer = setTimeout(() => {
      timer = undefined
      void runOnce()
        .catch((error) => options.log?.('warn', 'retention pass failed', String(error)))
        .finally(() => schedule(intervalMs))
    }, delayMs)
    timer.unref()
  }

  return {
    runOnce,
    start(firstDelayMs = 60_000) {
      stopped = false
      schedule(firstDelayMs)
    },
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = undefined
      await running?.catch(() => undefined)
    },
    nextRunAt: () => nextRun,
    retentionDays: daysOf,
  }
}
