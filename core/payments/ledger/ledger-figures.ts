import { and, eq, not, sql } from 'drizzle-orm'
import type { Micros } from '../../money.ts'
import type { Db } from '../../store/database.ts'
import { settlements } from '../../store/schema.ts'
import { KEY_UPGRADE_OPERATION_ID } from '../pricing.ts'

export interface LedgerSummary {
  /** PENDING rows still within their retry budget. */
  pending: number
  /** PENDING rows whose retry budget is spent (counted separately, spec: States). */
  exhausted: number
  failed: number
  /** PENDING rows whose settlement outcome cannot be learned (counted, never guessed). */
  unknown: number
  /** Money of PENDING rows (exhausted or not) that may never arrive. */
  uncollectedMicros: Micros
  /** PENDING rows waiting for the retry worker. */
  queueDepth: number
}

/** The ledger's figures for GET /v1/financial/health: settlement states and settled revenue. */
export function ledgerFigures(db: Db) {
  return {
    /** Figures for GET /v1/financial/health. */
    async summary(): Promise<LedgerSummary> {
      const [row] = await db
        .select({
          pending: sql<number>`count(*) filter (where status = 'PENDING' and not exhausted)`,
          exhausted: sql<number>`count(*) filter (where status = 'PENDING' and exhausted)`,
          failed: sql<number>`count(*) filter (where status = 'FAILED' and phase = 'done')`,
          unknown: sql<number>`count(*) filter (where status = 'PENDING' and phase = 'unknown')`,
          uncollected: sql<string>`coalesce(sum(amount_micros) filter (where status = 'PENDING' and phase = 'retrying'), 0)`,
          queue: sql<number>`count(*) filter (where status = 'PENDING' and phase = 'retrying' and not exhausted)`,
        })
        .from(settlements)
      return {
        pending: Number(row?.pending ?? 0),
        exhausted: Number(row?.exhausted ?? 0),
        failed: Number(row?.failed ?? 0),
        unknown: Number(row?.unknown ?? 0),
        uncollectedMicros: BigInt(row?.uncollected ?? 0),
        queueDepth: Number(row?.queue ?? 0),
      }
    },

    /**
     * Settled per-call x402 revenue (key top-ups are deposits, not revenue) and how many distinct
     * payers it came from, platform-wide or attributed to one key.
     */
    async callRevenue(keyId?: string): Promise<{ micros: Micros; payers: number }> {
      const [row] = await db
        .select({
          total: sql<string>`coalesce(sum(${settlements.amountMicros}), 0)`,
          payers: sql<number>`count(distinct ${settlements.payer})`,
        })
        .from(settlements)
        .where(
          and(
            eq(settlements.status, 'SETTLED'),
            not(sql`${settlements.operation} like ${`${KEY_UPGRADE_OPERATION_ID}%`}`),
            keyId === undefined ? undefined : eq(settlements.keyId, keyId),
          ),
        )
      return { micros: BigInt(row?.total ?? 0), payers: Number(row?.payers ?? 0) }
    },
  }
}
