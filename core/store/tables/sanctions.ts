import { customType, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/** Raw bytes (PostgreSQL bytea); both drivers accept and return Uint8Array-compatible values. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (value instanceof Uint8Array ? value : Buffer.from(value as ArrayBuffer)),
})

/**
 * Every stored version of a sanctions list (OFAC SDN, EU, UN). `entries` is the gzip of the
 * parsed entries as JSON, so a restart reads one row per list and rebuilds the index without
 * downloading or parsing the official file again. `checked_at` moves forward each time a
 * refresh finds the source unchanged (same sha256), so every process sees when a list was last
 * confirmed current. Only the last few versions per list are kept.
 */
export const sanctionsListVersions = pgTable(
  'sanctions_list_versions',
  {
    id: text('id').primaryKey(),
    listKey: text('list_key').notNull(),
    format: text('format').notNull(),
    /** The list's own publication date (YYYY-MM-DD) when the file carries one. */
    publicationDate: text('publication_date'),
    /** Hex SHA-256 of the (decompressed) file content. */
    sha256: text('sha256').notNull(),
    entryCount: integer('entry_count').notNull(),
    /** The URL or path the version was read from (the last one that confirmed it). */
    source: text('source').notNull(),
    fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull(),
    checkedAt: timestamp('checked_at', { withTimezone: true }).notNull(),
    entries: bytea('entries').notNull(),
    warnings: jsonb('warnings').$type<string[]>(),
  },
  (table) => [index('sanctions_list_versions_list_fetched_idx').on(table.listKey, table.fetchedAt)],
)

/**
 * The difference between two consecutive versions of one list: counts for quick reading and
 * the detail (added and removed entries, changed entries with what changed) as JSON. Diffs are
 * kept after their versions are pruned: they drive compliance alerts and webhooks.
 */
export const sanctionsListDiffs = pgTable(
  'sanctions_list_diffs',
  {
    id: text('id').primaryKey(),
    listKey: text('list_key').notNull(),
    fromVersion: text('from_version').notNull(),
    toVersion: text('to_version').notNull(),
    fromDate: text('from_date'),
    toDate: text('to_date'),
    addedCount: integer('added_count').notNull(),
    removedCount: integer('removed_count').notNull(),
    changedCount: integer('changed_count').notNull(),
    detail: jsonb('detail').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('sanctions_list_diffs_list_created_idx').on(table.listKey, table.createdAt)],
)

/**
 * A lease row per job name: the process whose atomic claim succeeds runs the refresh; the
 * others skip it. A lease expires by itself, so a process that dies mid-refresh blocks no one
 * for longer than the lease.
 */
export const sanctionsRefreshLeases = pgTable('sanctions_refresh_leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
})
