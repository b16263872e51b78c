import { sql } from 'drizzle-orm'
import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * Idempotency-Key claims and stored answers (core/idempotency/idempotency-store.ts), scoped per API
 * key: another key sending the same Idempotency-Key is unrelated. A row is claimed
 * (`in_progress`) before the call is charged and deleted when the call failed and nothing was
 * charged. A key-paid call writes its answer and `reservation_id` (key_reservations.id) before the
 * capture; the capture statement marks the row `done` in the same statement that makes the debit
 * stand, and a release of the reservation (refund, sweep of a dead process) deletes the row, so an
 * answer is replayable exactly when it was paid (core/keys/reservations.ts). `claim_id` names the
 * call holding an `in_progress` row, so a process whose claim was taken over changes nothing;
 * `instance_id` names its process, so the sweep frees the claims of a process that died (a retry
 * runs at once instead of waiting for the takeover).
 * `response_body` is the JSON text as answered (text, not jsonb, so a replay is byte for byte).
 * Rows are deleted 24 hours after `created_at` by the retention job (idempotency_records).
 */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    keyId: text('key_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    operation: text('operation').notNull(),
    /** SHA-256 (hex) of the canonical JSON of operation id, quality tier and parsed input. */
    requestHash: text('request_hash').notNull(),
    /** in_progress | done */
    state: text('state').notNull(),
    claimId: text('claim_id').notNull(),
    /** The process holding an `in_progress` claim (Database.holdLiveness); null for older rows. */
    instanceId: text('instance_id'),
    reservationId: text('reservation_id'),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.keyId, table.idempotencyKey] }),
    index('idempotency_records_created_idx').on(table.createdAt),
    index('idempotency_records_reservation_idx')
      .on(table.reservationId)
      .where(sql`reservation_id is not null`),
    index('idempotency_records_claims_idx').on(table.instanceId).where(sql`state = 'in_progress'`),
  ],
)
