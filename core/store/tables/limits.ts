import { bigint, integer, pgTable, text } from 'drizzle-orm/pg-core'

/**
 * Rate-limit counters (core/limits/rate-limiter.ts), one row per subject (`key:<id>`,
 * `payer:<address>`, `ip:<address>`), shared by every process on one database. A call's admission
 * is one `INSERT ... ON CONFLICT DO UPDATE` on this row, which PostgreSQL applies atomically on the
 * latest row version, so concurrent calls from any number of processes are counted exactly.
 * - minute: a fixed window (`minute_no` = Unix minutes);
 * - rolling 24 hours: 24 hourly slots, `hour_counts[24]` being the hour `hour_no` (Unix hours);
 * - month: the calendar month UTC (`month_no` = year * 12 + month index).
 * The limits and the size of the latest request ride on the row so the upsert can read them from
 * `excluded`; `granted` is how many calls of the latest statement were let through.
 */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  subject: text('subject').primaryKey(),
  minuteNo: bigint('minute_no', { mode: 'number' }).notNull(),
  minuteCount: integer('minute_count').notNull(),
  hourNo: bigint('hour_no', { mode: 'number' }).notNull(),
  hourCounts: integer('hour_counts').array().notNull(),
  monthNo: integer('month_no').notNull(),
  monthCount: integer('month_count').notNull(),
  perMinute: integer('per_minute').notNull(),
  perDay: integer('per_day').notNull(),
  perMonth: integer('per_month').notNull(),
  requested: integer('requested').notNull(),
  granted: integer('granted').notNull(),
})
