/**
 * The counters a limit keeps per subject (`key:<id>`, `payer:<address>`, `ip:<address>`), and the
 * store interface both counter stores implement: shared in PostgreSQL (shared-counter-store.ts)
 * or held in memory for an embedded database (embedded-counter-store.ts).
 */

import type { TierLimits } from './rate-limit-policy.ts'

/** What the SQL needs for "no limit": the largest integer column value. */
export const NO_LIMIT = 2_147_483_647
export const HOUR_SLOTS = 24

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
export interface TakeRequest {
  subject: string
  limits: TierLimits
  at: Date
}

export interface TakeResult {
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

export const sqlLimit = (value: number): number =>
  Number.isFinite(value) ? Math.min(value, NO_LIMIT) : NO_LIMIT

/**
 * A PostgreSQL array literal for one bound parameter (drizzle spreads a JS array into a list of
 * parameters): numbers as they are, text quoted with `\` and `"` escaped.
 */
export function pgArray(values: readonly (string | number)[]): string {
  const items = values.map((value) =>
    typeof value === 'number' ? String(value) : `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`,
  )
  return `{${items.join(',')}}`
}

export function toNumbers(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number)
  if (typeof value === 'string') {
    return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number)
  }
  return []
}

/** A counter row as the database returns it. */
export function rowOf(raw: Record<string, unknown>): CounterRow {
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
