import { bigint, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * Hourly rollup of `usage_events` per key, operation and outcome, written in the same statement as
 * the events (core/usage/usage-recorder.ts). Usage reports read this table, so a summary costs the
 * hours and operations of its period, not the number of calls.
 */
export const usageRollups = pgTable(
  'usage_rollups',
  {
    keyId: text('key_id').notNull(),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    operation: text('operation').notNull(),
    outcome: text('outcome').notNull(),
    calls: bigint('calls', { mode: 'bigint' }).notNull(),
    costMicros: bigint('cost_micros', { mode: 'bigint' }).notNull(),
    latencyMsSum: bigint('latency_ms_sum', { mode: 'bigint' }).notNull(),
  },
  // The primary key leads with (key_id, hour): a period's rows of one key are one index range.
  (table) => [primaryKey({ columns: [table.keyId, table.hour, table.operation, table.outcome] })],
)
