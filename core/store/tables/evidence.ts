import { bigint, bigserial, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

/**
 * The audit trail (core/evidence/audit-store.ts): append-only, one hash chain per payer (`chain`:
 * `key:<id>`, `x402:<network>:<payer>`, or `platform` for operator changes). Every row holds the
 * hash of the row before it in its chain (`prev_hash`) and its own `hash` over its content; the
 * subject is chained as `subject_sha256` only, so its plaintext can be erased and the chain still
 * verifies. `(chain, seq)` is unique: two processes appending to one chain can never fork it. A
 * paid call's row carries its signed receipt (`receipt`), served by GET /v1/receipts/{id}.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'bigint' }).primaryKey(),
    chain: text('chain').notNull(),
    seq: bigint('seq', { mode: 'bigint' }).notNull(),
    keyId: text('key_id'),
    at: timestamp('at', { withTimezone: true }).notNull(),
    kind: text('kind').notNull(),
    action: text('action').notNull(),
    outcome: text('outcome').notNull(),
    subject: text('subject'),
    subjectSha256: text('subject_sha256'),
    paidWith: text('paid_with'),
    amountMicros: bigint('amount_micros', { mode: 'bigint' }),
    receiptId: text('receipt_id'),
    /** The signed receipt as its JSON text (text, not jsonb: stored as sent, never queried inside). */
    receipt: text('receipt'),
    detail: jsonb('detail'),
    /** Short digest per chained field: lets verification name the field that was changed. */
    fieldDigests: text('field_digests').notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (table) => [
    uniqueIndex('audit_events_chain_seq_idx').on(table.chain, table.seq),
    uniqueIndex('audit_events_receipt_idx').on(table.receiptId),
    index('audit_events_key_at_idx').on(table.keyId, table.at),
    index('audit_events_at_idx').on(table.at),
    index('audit_events_subject_idx').on(table.chain, table.subjectSha256),
  ],
)
