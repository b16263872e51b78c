import { sql } from 'drizzle-orm'
import { bigint, bigserial, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * API keys. The key itself is never stored: only its SHA-256 (keys carry 256 random bits, so a fast
 * hash is enough) and a short display prefix. Money columns are integer micro-USDC.
 */
export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  keyHash: text('key_hash').notNull().unique(),
  keyPrefix: text('key_prefix').notNull(),
  email: text('email').notNull(),
  tier: text('tier').notNull(),
  mode: text('mode').notNull(),
  role: text('role').notNull().default('customer'),
  status: text('status').notNull().default('active'),
  balanceMicros: bigint('balance_micros', { mode: 'bigint' }).notNull().default(sql`0`),
  spentMicros: bigint('spent_micros', { mode: 'bigint' }).notNull().default(sql`0`),
  callCount: bigint('call_count', { mode: 'bigint' }).notNull().default(sql`0`),
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

/** One row per priced or key-authenticated call: feeds usage summaries and revenue figures. */
export const usageEvents = pgTable(
  'usage_events',
  {
    id: bigserial('id', { mode: 'bigint' }).primaryKey(),
    keyId: text('key_id'),
    operation: text('operation').notNull(),
    /** ok, payment_required, or a ServiceError code (the HTTP adapter maps it to a status). */
    outcome: text('outcome').notNull(),
    paidWith: text('paid_with').notNull(),
    costMicros: bigint('cost_micros', { mode: 'bigint' }).notNull().default(sql`0`),
    latencyMs: integer('latency_ms').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('usage_events_key_created_idx').on(table.keyId, table.createdAt)],
)

/**
 * Key charges as durable reservations (core/keys/reservations.ts). A row is written with the
 * debit, before the call runs; capture stamps `captured_at` when the answer is produced (the
 * debit stands); release deletes the row and gives the amount back, in one statement. An open
 * row of a process that died is released by the next process's sweep (advisory-lock liveness, as
 * for the ledger); captured rows are kept a minute, so a capture whose commit is in doubt (the
 * database went away) can still be undone, then deleted.
 */
export const keyReservations = pgTable(
  'key_reservations',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id').notNull(),
    operation: text('operation').notNull(),
    amountMicros: bigint('amount_micros', { mode: 'bigint' }).notNull(),
    instanceId: text('instance_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    capturedAt: timestamp('captured_at', { withTimezone: true }),
  },
  (table) => [index('key_reservations_instance_idx').on(table.instanceId)],
)
