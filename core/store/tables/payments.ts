import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core'

/**
 * Used x402 nonces (spec: nonce replay window). One row per (network, payer, nonce): the primary
 * key makes a concurrent replay lose at the database, whichever process it reached.
 */
export const paymentNonces = pgTable(
  'payment_nonces',
  {
    network: text('network').notNull(),
    payer: text('payer').notNull(),
    nonce: text('nonce').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.network, table.payer, table.nonce] }),
    index('payment_nonces_expires_idx').on(table.expiresAt),
  ],
)

/**
 * The settlement ledger: one row per verified x402 payment, written before the paid operation
 * runs, so a crash at any point leaves a row the start-up sweep can resolve.
 * status: PENDING (phase reserved | settling | retrying) -> SETTLED | FAILED; `exhausted` marks a
 * PENDING row whose retry budget is spent (spec: States, settlement ledger rows).
 */
export const settlements = pgTable(
  'settlements',
  {
    id: text('id').primaryKey(),
    paymentId: text('payment_id').notNull().unique(),
    status: text('status').notNull(),
    phase: text('phase').notNull(),
    exhausted: boolean('exhausted').notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    network: text('network').notNull(),
    payer: text('payer').notNull(),
    amountMicros: bigint('amount_micros', { mode: 'bigint' }).notNull(),
    operation: text('operation').notNull(),
    keyId: text('key_id'),
    instanceId: text('instance_id').notNull(),
    payment: jsonb('payment').notNull(),
    transaction: text('transaction'),
    fallback: boolean('fallback').notNull().default(false),
    lastError: text('last_error'),
    validBefore: timestamp('valid_before', { withTimezone: true }),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
    /**
     * The answer this payment bought, kept so that a retry with the same payment and the same
     * request (`request_hash`, as for Idempotency-Key) gets it again instead of a nonce-replay
     * refusal: the payment was settled before the answer was sent, and the answer may not have
     * arrived. JSON text as answered (null body for a 204); cleared a day later by the payment
     * worker (SettlementLedger.forgetAnswers), long after the payment could be presented again.
     */
    requestHash: text('request_hash'),
    answerStatus: integer('answer_status'),
    answerBody: text('answer_body'),
  },
  (table) => [
    index('settlements_status_next_idx').on(table.status, table.nextAttemptAt),
    index('settlements_key_idx').on(table.keyId),
    index('settlements_answers_idx').on(table.createdAt).where(sql`answer_status is not null`),
  ],
)

/** Live service processes (heartbeat), so a start-up sweep never resolves another live process's rows. */
export const serviceInstances = pgTable('service_instances', {
  id: text('id').primaryKey(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().default(sql`now()`),
})
