import { and, eq, inArray, lte, ne, or } from 'drizzle-orm'
import { serviceInstances, settlements } from '../../store/schema.ts'
import type { VerifiedPayment } from '../verify-result.ts'
import { type LedgerContext, markSettled, type SettlementPhase } from './settlement-rows.ts'
import { loadPayment, type StoredPayment } from './stored-payment.ts'

/**
 * The ledger's side of the start-up sweep: this process registers itself, finds the rows of
 * processes that are gone (or of settlements left `settling` too long), and resolves each from
 * what the chain shows, never by settling again.
 */
export function orphanSweep(ctx: LedgerContext, staleSettlingMs: number) {
  const { db, clock, config, instanceId } = ctx
  return {
    /** Records this process in the instance registry (who reserved which rows). */
    async register(): Promise<void> {
      const now = clock.now()
      await db
        .insert(serviceInstances)
        .values({ id: instanceId, startedAt: now, heartbeatAt: now })
        .onConflictDoUpdate({ target: serviceInstances.id, set: { heartbeatAt: now } })
    },

    /**
     * Start-up sweep input: PENDING rows reserved or mid-settlement by a process that is gone
     * (`isAlive` asks the database, see Database.isAlive).
     */
    async orphans(
      isAlive: (instanceId: string) => Promise<boolean>,
    ): Promise<{ id: string; phase: SettlementPhase; payment: VerifiedPayment }[]> {
      const staleBefore = clock.now().getTime() - staleSettlingMs
      const rows = await db
        .select()
        .from(settlements)
        .where(
          and(
            eq(settlements.status, 'PENDING'),
            inArray(settlements.phase, ['reserved', 'settling', 'unknown']),
            // This process's own rows are calls in flight, unless one was left settling too long:
            // not read at all (every worker pass runs this, with any number of calls in flight).
            or(
              ne(settlements.instanceId, instanceId),
              and(eq(settlements.phase, 'settling'), lte(settlements.updatedAt, new Date(staleBefore))),
            ),
          ),
        )
      const alive = new Map<string, boolean>([[instanceId, true]])
      for (const owner of new Set(rows.map((row) => row.instanceId))) {
        if (!alive.has(owner)) alive.set(owner, await isAlive(owner))
      }
      // Rows of dead processes, and rows any process (this one too) left `settling` for too long:
      // it settled but could not record the outcome (the database failed just then).
      const stale = (row: (typeof rows)[number]) =>
        row.phase === 'settling' && row.updatedAt.getTime() <= staleBefore
      return rows
        .filter((row) => !alive.get(row.instanceId) || stale(row))
        .map((row) => ({
          id: row.id,
          phase: row.phase as SettlementPhase,
          payment: loadPayment(row.payment as StoredPayment, config),
        }))
    },

    /**
     * Resolves an orphan: SETTLED when the chain shows the transfer happened, FAILED otherwise.
     * Never sends a settlement itself, so nothing is settled twice.
     */
    async resolveOrphan(id: string, outcome: { settled: boolean; transaction?: string; reason: string }) {
      if (outcome.settled) {
        await markSettled(ctx, id, ['reserved', 'settling', 'retrying', 'unknown'], {
          status: 'SETTLED',
          phase: 'done',
          transaction: outcome.transaction ?? null,
          settledAt: clock.now(),
          lastError: outcome.reason,
        })
        return
      }
      await db
        .update(settlements)
        .set({ status: 'FAILED', phase: 'done', lastError: outcome.reason, updatedAt: clock.now() })
        .where(and(eq(settlements.id, id), eq(settlements.status, 'PENDING')))
    },

    /**
     * An orphan whose outcome cannot be learned (no RPC to ask, the chain unreachable): it stays
     * PENDING in phase `unknown`, counted in the health figures, and is asked again on later sweeps.
     */
    async markUnknown(id: string, reason: string): Promise<boolean> {
      const rows = await db
        .update(settlements)
        .set({ phase: 'unknown', lastError: reason })
        .where(
          and(
            eq(settlements.id, id),
            eq(settlements.status, 'PENDING'),
            inArray(settlements.phase, ['settling']),
          ),
        )
        .returning({ id: settlements.id })
      return rows.length === 1
    },
  }
}
