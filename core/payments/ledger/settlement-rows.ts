import { and, eq, inArray, notLike } from 'drizzle-orm'
import type { Clock, Tier } from '../../context.ts'
import { creditTopUp } from '../../keys/api-keys.ts'
import type { Db, DbTransaction } from '../../store/database.ts'
import { settlements } from '../../store/schema.ts'
import type { PaymentConfig } from '../networks.ts'
import { KEY_UPGRADE_OPERATION_ID } from '../pricing.ts'

/** `unknown`: a dead process was settling it and neither the chain nor anything else can tell the outcome. */
export type SettlementPhase = 'reserved' | 'settling' | 'retrying' | 'unknown'

/** What every part of the ledger works with. */
export interface LedgerContext {
  db: Db
  clock: Clock
  config: PaymentConfig
  /** This process's id (rows it reserves carry it). */
  instanceId: string
}

/** The LIKE pattern of a key top-up's operation (`key_upgrade:<tier>`; LIKE's `_` escaped). */
export const TOP_UP_PATTERN = `${`${KEY_UPGRADE_OPERATION_ID}:`.replace(/[\\%_]/g, '\\$&')}%`

/** Rows that are not a key top-up. */
export const notTopUp = notLike(settlements.operation, TOP_UP_PATTERN)

export type SettlementValues = { [K in keyof typeof settlements.$inferInsert]?: unknown }

/**
 * Moves a PENDING row on, in one UPDATE guarded by the phases it may come from, so a row moves
 * forward exactly once even with several workers; false when another worker had it.
 */
export async function updatePendingRow(
  { db, clock }: LedgerContext,
  id: string,
  from: SettlementPhase[],
  values: SettlementValues,
  executor: Db | DbTransaction = db,
): Promise<boolean> {
  const rows = await executor
    .update(settlements)
    .set({ ...(values as Partial<typeof settlements.$inferInsert>), updatedAt: clock.now() })
    .where(and(eq(settlements.id, id), eq(settlements.status, 'PENDING'), inArray(settlements.phase, from)))
    .returning({ id: settlements.id })
  return rows.length === 1
}

/**
 * Moves a PENDING row to SETTLED, with what depends on the money in the same commit: a key
 * top-up (`key_upgrade:<tier>`) credits its key in one transaction with its row, on every path to
 * SETTLED (at once, a retried ledger write, or the sweep), so a paid top-up is credited exactly
 * once. Any other row is settled by one UPDATE.
 */
export async function markSettled(
  { db, clock }: LedgerContext,
  id: string,
  from: SettlementPhase[],
  values: SettlementValues,
): Promise<boolean> {
  const prefix = `${KEY_UPGRADE_OPERATION_ID}:`
  // Most rows pay for an answer, not a top-up: one guarded UPDATE settles them, without the
  // transaction's BEGIN and COMMIT (PGlite: without its exclusive transaction lock). A top-up row
  // never matches it and is settled below, with its credit in the same commit.
  const [plain] = await db
    .update(settlements)
    .set({ ...(values as Partial<typeof settlements.$inferInsert>), updatedAt: clock.now() })
    .where(
      and(
        eq(settlements.id, id),
        eq(settlements.status, 'PENDING'),
        inArray(settlements.phase, from),
        notTopUp,
      ),
    )
    .returning({ id: settlements.id })
  if (plain) return true
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(settlements)
      .set({ ...(values as Partial<typeof settlements.$inferInsert>), updatedAt: clock.now() })
      .where(and(eq(settlements.id, id), eq(settlements.status, 'PENDING'), inArray(settlements.phase, from)))
      .returning({
        operation: settlements.operation,
        keyId: settlements.keyId,
        amount: settlements.amountMicros,
      })
    if (!row) return false
    if (row.operation.startsWith(prefix) && row.keyId) {
      await creditTopUp(tx, row.keyId, row.amount, row.operation.slice(prefix.length) as Tier)
    }
    return true
  })
}
