import { index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * Entity reports (POST /v1/reports/entity), per owner (`key:<id>` or `x402:<network>:<payer>`).
 * `report` is the signed document exactly as delivered (evidence included), so GET returns the
 * same bytes' meaning and verification keeps working. `trust_level` and `entity_hash` serve the
 * public badge (latest report of an entity, nothing else disclosed).
 */
export const entityReports = pgTable(
  'entity_reports',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    keyId: text('key_id'),
    checkId: text('check_id').notNull(),
    entityHash: text('entity_hash').notNull(),
    trustLevel: text('trust_level').notNull(),
    report: jsonb('report').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    index('entity_reports_owner_idx').on(table.owner, table.createdAt),
    index('entity_reports_entity_idx').on(table.entityHash, table.createdAt),
  ],
)

/**
 * The identifiers of each report (VAT, IBAN, domain, wallet, register number, director), for
 * correlations with the same owner's earlier reports. `value` is normalised (upper case, no spaces).
 */
export const reportIdentifiers = pgTable(
  'report_identifiers',
  {
    reportId: text('report_id')
      .notNull()
      .references(() => entityReports.id, { onDelete: 'cascade' }),
    owner: text('owner').notNull(),
    kind: text('kind').notNull(),
    value: text('value').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.reportId, table.kind, table.value] }),
    index('report_identifiers_owner_value_idx').on(table.owner, table.kind, table.value),
  ],
)

/**
 * Share links of reports (POST /v1/reports/{id}/share): who made each one and until when it
 * opens. The link's token is an HMAC over (report id, share id, expiry); this row is what makes
 * it revocable (`revoked_at`), and it goes with its report.
 */
export const reportShares = pgTable(
  'report_shares',
  {
    id: text('id').primaryKey(),
    reportId: text('report_id')
      .notNull()
      .references(() => entityReports.id, { onDelete: 'cascade' }),
    owner: text('owner').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [index('report_shares_report_idx').on(table.reportId)],
)
