import { boolean, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * When each upstream provider was first configured in this database (GET /v1/providers
 * `registered_at`): a row is written, once, the first time a process starts with the provider
 * configured, and never changed afterwards.
 */
export const providerRegistrations = pgTable('provider_registrations', {
  key: text('key').primaryKey(),
  firstConfiguredAt: timestamp('first_configured_at', { withTimezone: true }).notNull(),
})

/**
 * The operator's maintenance switch (PUT /v1/admin/maintenance), one row shared by every process
 * on the database: while `enabled`, priced and key routes answer 503 with `message` and
 * Retry-After `retry_after_seconds`, charging nothing.
 */
export const maintenanceState = pgTable('maintenance_state', {
  id: text('id').primaryKey(),
  enabled: boolean('enabled').notNull(),
  message: text('message').notNull(),
  retryAfterSeconds: integer('retry_after_seconds').notNull(),
  changedAt: timestamp('changed_at', { withTimezone: true }).notNull(),
  /** Who switched it: `admin_api` or `cli`. */
  changedBy: text('changed_by').notNull(),
})
