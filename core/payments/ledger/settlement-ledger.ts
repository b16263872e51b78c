import { randomUUID } from 'node:crypto'
import { and, eq, lte, sql } from 'drizzle-orm'
import type { Micros } from '../../money.ts'
import { type GroupCommit, groupCommitOf } from '../../store/group-commit.ts'
import { settlements } from '../../store/schema.ts'
import type { PaidAnswer } from '../charge.ts'
import { buildPaymentResponse, type PaymentResponse, type SettleResult } from '../settle-result.ts'
import type { VerifiedPayment } from '../verify-result.ts'
import { ledgerFigures } from './ledger-figures.ts'
import { ledgerWritesOf } from './ledger-steps.ts'
import { orphanSweep } from './orphan-sweep.ts'
import { type LedgerContext, markSettled, type SettlementPhase, updatePendingRow } from './settlement-rows.ts'
import { loadPayment, type StoredPayment, storePayment } from './stored-payment.ts'

export type { LedgerSummary } from './ledger-figures.ts'
export type { SettlementPhase } from './settlement-rows.ts'

export interface LedgerRow {
  id: string
  status: 'PENDING' | 'SETTLED' | 'FAILED'
  phase: SettlementPhase | 'done' | 'released'
  exhausted: boolean
  attempts: number
  operation: string
  keyId: string | null
  amountMicros: Micros
  transaction: string | null
  lastError: string | null
}

/** The answer a settled (or deferred) payment bought, with what its receipt said. */
export interface KeptAnswer {
  answer: PaidAnswer
  amount: Micros
  /** PENDING: verified and held for the retry worker; SETTLED: on chain. */
  status: 'PENDING' | 'SETTLED'
  fallback: boolean
  response: PaymentResponse
}

export interface SettlementLedgerOptions extends LedgerContext {
  /** Settlement attempts before a PENDING row is marked exhausted. */
  maxAttempts?: number
  /**
   * A row of a live process still `settling` after this long is treated like an orphan by the
   * sweep (its process settled it but could not record the outcome). Default 5 minutes: longer
   * than any settlement attempt with its receipt wait.
   */
  staleSettlingMs?: number
  /** Where the hot steps share statements with the other writes of concurrent calls (default: the handle's). */
  group?: GroupCommit
}

/** The phases a settlement that succeeded moves from (`unknown`: a sweep marked a row this process settled). */
const SETTLED_FROM: SettlementPhase[] = ['settling', 'unknown']

/**
 * A payment's way through the ledger: reserved before its operation runs, released when the
 * operation fails, then settling, retrying (or exhausted), SETTLED or FAILED; each step is one
 * guarded UPDATE (settlement-rows.ts). The steps every call takes (the insert, the first attempt,
 * SETTLED of a row that is not a top-up, the kept answer) share statements with concurrent calls
 * (ledger-steps.ts); each still commits before the call takes its next step.
 */
function settlementSteps(ctx: LedgerContext, maxAttempts: number, group: GroupCommit) {
  const { db, clock, config, instanceId } = ctx
  const settledValues = (result: SettleResult) => ({
    status: 'SETTLED',
    phase: 'done',
    transaction: result.transaction ?? null,
    fallback: result.fallback ?? false,
    settledAt: clock.now(),
    lastError: null,
  })
  // The steps every x402 call takes share statements with the concurrent calls' (ledger-steps.ts).
  const hot = ledgerWritesOf(db, group)
  return {
    /** Records a verified payment before its operation runs. */
    async reserve(payment: VerifiedPayment, operation: string, keyId: string | null): Promise<string> {
      const id = randomUUID()
      const written = await hot.reserve({
        id,
        paymentId: payment.paymentId,
        network: payment.network,
        payer: payment.payer,
        amount: payment.amount.toString(),
        operation,
        keyId,
        instanceId,
        payment: JSON.stringify(storePayment(payment)),
        validBefore: payment.validBefore?.toISOString() ?? null,
      })
      if (!written) throw new Error(`settlement ${id} was not written`)
      return id
    },

    /** The operation failed: nothing is charged and the payment is released (not a failed settlement). */
    release: (id: string, reason: string) =>
      updatePendingRow(ctx, id, ['reserved'], { status: 'FAILED', phase: 'released', lastError: reason }),

    /** A settlement attempt starts; false when another worker has the row. */
    beginAttempt: async (id: string, from: SettlementPhase[]) =>
      from.length === 1 && from[0] === 'reserved'
        ? hot.firstAttempt({ id, now: clock.now().toISOString() })
        : updatePendingRow(ctx, id, from, { phase: 'settling', attempts: sql`${settlements.attempts} + 1` }),

    /**
     * The settlement succeeded: SETTLED (a top-up credits its key in the same commit). From
     * `unknown` too: a sweep may have marked a row whose outcome this process knows.
     */
    settled: async (id: string, result: SettleResult) => {
      const values = settledValues(result)
      const plain = await hot.settled({
        id,
        transaction: values.transaction,
        fallback: values.fallback,
        at: values.settledAt.toISOString(),
      })
      // A top-up, or a row that did not move: markSettled (the top-up's credit in its transaction).
      return plain || markSettled(ctx, id, SETTLED_FROM, values)
    },

    failed: (id: string, reason: string) =>
      updatePendingRow(ctx, id, ['settling', 'retrying', 'reserved'], {
        status: 'FAILED',
        phase: 'done',
        lastError: reason,
      }),

    /** A retryable failure: try again later, or mark exhausted when the budget is spent. */
    async retryLater(id: string, reason: string, attempts: number, delayMs: number): Promise<void> {
      const exhausted = attempts >= maxAttempts
      await updatePendingRow(ctx, id, ['settling'], {
        phase: 'retrying',
        lastError: reason,
        exhausted,
        nextAttemptAt: exhausted ? null : new Date(clock.now().getTime() + delayMs),
      })
    },

    /** PENDING rows due for a retry (not exhausted), oldest first. */
    async due(limit = 20): Promise<{ id: string; attempts: number; payment: VerifiedPayment }[]> {
      const rows = await db
        .select()
        .from(settlements)
        .where(
          and(
            eq(settlements.status, 'PENDING'),
            eq(settlements.phase, 'retrying'),
            eq(settlements.exhausted, false),
            lte(settlements.nextAttemptAt, clock.now()),
          ),
        )
        .orderBy(settlements.nextAttemptAt)
        .limit(limit)
      return rows.map((row) => ({
        id: row.id,
        attempts: row.attempts,
        payment: loadPayment(row.payment as StoredPayment, config),
      }))
    },

    /**
     * Keeps the answer a payment bought (after `complete`: settled or deferred), for a retry with
     * the same payment and request; the answer may not have reached the caller.
     */
    async keepAnswer(id: string, requestHash: string, answer: PaidAnswer): Promise<void> {
      await hot.keepAnswer({ id, requestHash, status: answer.status, body: answer.body })
    },

    /**
     * The answer kept for this payment and request, unless the payment failed or was released
     * (then there is nothing paid to give back); undefined for another request.
     */
    async answerFor(paymentId: string, requestHash: string): Promise<KeptAnswer | undefined> {
      const [row] = await db
        .select()
        .from(settlements)
        .where(and(eq(settlements.paymentId, paymentId), eq(settlements.requestHash, requestHash)))
        .limit(1)
      if (!row || row.answerStatus === null || row.status === 'FAILED') return undefined
      return {
        answer: { status: row.answerStatus, body: row.answerBody },
        amount: row.amountMicros,
        status: row.status as KeptAnswer['status'],
        fallback: row.fallback,
        response: buildPaymentResponse({
          success: row.status === 'SETTLED',
          transaction: row.transaction ?? undefined,
          network: row.network,
          payer: row.payer,
          amount: row.amountMicros.toString(),
        }),
      }
    },

    /**
     * Clears the answers kept for retries once they are older than `keepMs` (a retry with the same
     * payment is refused long before: its nonce or blockhash has expired). Returns how many.
     */
    async forgetAnswers(keepMs: number): Promise<number> {
      const before = new Date(clock.now().getTime() - keepMs)
      const rows = await db
        .update(settlements)
        .set({ requestHash: null, answerStatus: null, answerBody: null })
        .where(and(sql`${settlements.answerStatus} is not null`, lte(settlements.createdAt, before)))
        .returning({ id: settlements.id })
      return rows.length
    },

    async get(id: string): Promise<LedgerRow | null> {
      const [row] = await db.select().from(settlements).where(eq(settlements.id, id)).limit(1)
      return row
        ? {
            id: row.id,
            status: row.status as LedgerRow['status'],
            phase: row.phase as LedgerRow['phase'],
            exhausted: row.exhausted,
            attempts: row.attempts,
            operation: row.operation,
            keyId: row.keyId,
            amountMicros: row.amountMicros,
            transaction: row.transaction,
            lastError: row.lastError,
          }
        : null
    },
  }
}

/**
 * The settlement ledger (spec: States, settlement ledger rows). Every verified payment gets a
 * row before its operation runs; each later step is one UPDATE guarded by the expected phase,
 * so a row moves forward exactly once even with several workers. Three parts: the payment's
 * steps (here), the start-up sweep of orphaned rows (orphan-sweep.ts) and the health figures
 * (ledger-figures.ts).
 */
export function createSettlementLedger(options: SettlementLedgerOptions) {
  const { db, clock, config, instanceId } = options
  const ctx: LedgerContext = { db, clock, config, instanceId }
  const maxAttempts = options.maxAttempts ?? 5
  return {
    maxAttempts,
    ...settlementSteps(ctx, maxAttempts, options.group ?? groupCommitOf(db)),
    ...orphanSweep(ctx, options.staleSettlingMs ?? 5 * 60_000),
    ...ledgerFigures(db),
  }
}

export type SettlementLedger = ReturnType<typeof createSettlementLedger>
