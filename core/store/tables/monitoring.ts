import { customType, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

/** Raw bytes (PostgreSQL bytea), for encrypted webhook secrets. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (value instanceof Uint8Array ? value : Buffer.from(value as ArrayBuffer)),
})

/**
 * Sanctions monitoring: compliance alerts made from stored list diffs, per-key
 * watchlists, webhooks and their durable delivery queue. Every row that belongs to a customer
 * carries `key_id`; every query is scoped by it.
 */

/**
 * One row per stored list diff that has been turned into alerts (and deliveries). Inserted in
 * the same transaction as the alerts, so a diff is processed exactly once, whichever process
 * gets there first, and a crash mid-way leaves it unprocessed for the next pass.
 */
export const alertDiffRuns = pgTable('alert_diff_runs', {
  diffId: text('diff_id').primaryKey(),
  alertCount: integer('alert_count').notNull(),
  processedAt: timestamp('processed_at', { withTimezone: true }).notNull(),
})

/**
 * A compliance alert: one list change (key_id null: the daily list changes everyone sees), or
 * one list change that touches something a key checked or watches (key_id set, `match` set).
 * `alert` is the whole object the API and the webhook return.
 */
export const complianceAlerts = pgTable(
  'compliance_alerts',
  {
    id: text('id').primaryKey(),
    diffId: text('diff_id').notNull(),
    keyId: text('key_id'),
    listKey: text('list_key').notNull(),
    jurisdiction: text('jurisdiction').notNull(),
    eventType: text('event_type').notNull(),
    entryId: text('entry_id').notNull(),
    severity: text('severity').notNull(),
    alert: jsonb('alert').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex('compliance_alerts_unique_idx').on(table.diffId, table.entryId, table.keyId),
    index('compliance_alerts_key_created_idx').on(table.keyId, table.createdAt),
  ],
)

/** A watchlist entry of one key: a name (optional country), a wallet (chain) or a registration number (country). */
export const watchlistEntries = pgTable(
  'watchlist_entries',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id').notNull(),
    kind: text('kind').notNull(),
    value: text('value').notNull(),
    country: text('country'),
    chain: text('chain'),
    label: text('label'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('watchlist_entries_key_created_idx').on(table.keyId, table.createdAt)],
)

/**
 * A webhook of one key. `secret` is AES-256-GCM ciphertext (iv + tag + data) under the key
 * named by `secret_key_id`; `consecutive_failures` counts events that failed all attempts in a
 * row (10 deactivate the webhook; a success resets it).
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id').notNull(),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    secret: bytea('secret').notNull(),
    secretKeyId: text('secret_key_id').notNull(),
    status: text('status').notNull(),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    deactivatedAt: timestamp('deactivated_at', { withTimezone: true }),
  },
  (table) => [index('webhooks_key_idx').on(table.keyId, table.status)],
)

/**
 * The durable delivery queue: one row per (webhook, event). `body` is the exact envelope sent
 * on every attempt (same bytes, same signature). status: queued -> delivered | failed | dropped.
 * A worker claims due rows with FOR UPDATE SKIP LOCKED and sets `locked_until`, so a process
 * that dies mid-delivery releases its rows when the lock runs out.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id').notNull(),
    keyId: text('key_id').notNull(),
    event: text('event').notNull(),
    eventId: text('event_id').notNull(),
    body: text('body').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lockedBy: text('locked_by'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('webhook_deliveries_event_idx').on(table.webhookId, table.eventId),
    index('webhook_deliveries_due_idx').on(table.status, table.nextAttemptAt),
  ],
)

/** Every delivery attempt, for the receiver's debugging (GET /v1/webhooks/{id}/deliveries). */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id').notNull(),
    webhookId: text('webhook_id').notNull(),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    instanceId: text('instance_id').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (table) => [index('webhook_attempts_delivery_idx').on(table.deliveryId, table.attempt)],
)
