import { sql } from 'drizzle-orm'
import { type Db, rowsOf } from '../store/database.ts'
import {
  advanceRow,
  type CounterRow,
  type CounterStore,
  HOUR_SLOTS,
  pgArray,
  rowOf,
  windowsOf,
} from './counter-row.ts'

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

/** Drops in-memory counters with nothing left to count (the same rule as the table's sweep). */
function idle(row: CounterRow, subject: string, at: Date): boolean {
  const { minuteNo, hourNo, monthNo } = windowsOf(at)
  if (row.minuteNo >= minuteNo) return false
  return !keepsDays(subject) || (row.hourNo <= hourNo - HOUR_SLOTS && row.monthNo < monthNo)
}

/**
 * Subjects limited per day or month (keys, key creation): their rows stay until every window is
 * over. Payer rows count per minute only.
 */
const LONG_LIVED_PREFIXES = ['key:', 'signup-address:', 'signup-email:'] as const
const keepsDays = (subject: string): boolean =>
  LONG_LIVED_PREFIXES.some((prefix) => subject.startsWith(prefix))
