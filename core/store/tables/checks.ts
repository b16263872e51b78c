import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * Every company check a caller ran (entity, risk, reputation, KYB), per owner: `owner` is
 * `key:<key id>` or `x402:<payer>`, so history and cached answers never cross tenants.
 * `entity_hash` names the entity (sha256 of country + registration id or normalised name);
 * `input_hash` names the exact inputs that decide the result (for the cached tier).
 */
export const entityChecks = pgTable(
  'entity_checks',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    keyId: text('key_id'),
    operation: text('operation').notNull(),
    entityHash: text('entity_hash').notNull(),
    inputHash: text('input_hash').notNull(),
    quality: text('quality').notNull(),
    input: jsonb('input').notNull(),
    result: jsonb('result').notNull(),
    trustScore: integer('trust_score'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    index('entity_checks_owner_entity_idx').on(table.owner, table.entityHash, table.createdAt),
    index('entity_checks_owner_input_idx').on(table.owner, table.operation, table.inputHash, table.createdAt),
  ],
)
