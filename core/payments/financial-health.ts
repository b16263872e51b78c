import { and, eq, not, sql } from 'drizzle-orm'
import type { Caller } from '../context.ts'
import type { SettlementLedger } from '../ledger/settlement-ledger.ts'
import { microsToUsdNumber } from '../money.ts'
import type { Db } from '../store/database.ts'
import { apiKeys, settlements } from '../store/schema.ts'
import { KEY_UPGRADE_OPERATION_ID } from './pricing.ts'

export interface FinancialHealthDeps {
  db: Db
  ledger?: SettlementLedger
  /** Whether settlement (facilitator or on-chain key) is configured. */
  settlementConfigured: boolean
  solanaSettlementConfigured: boolean
  /** USDC held by the payTo address, when the chain can be asked. */
  treasuryBalance?: () => Promise<bigint | undefined>
}

const perCallX402 = not(sql`${settlements.operation} like ${`${KEY_UPGRADE_OPERATION_ID}%`}`)

/**
 * GET /v1/financial/health (spec: Resources, Financial health). Revenue is money earned by calls:
 * what keys spent from their prepaid balance plus settled per-call x402 payments (top-ups are
 * deposits, earned when spent). Settlement fields and the treasury are for operator keys only;
 * any other key sees the revenue attributed to itself. agents_tracked counts distinct x402 payers
 * whose payments settled.
 */
export async function financialHealth(deps: FinancialHealthDeps, caller: Extract<Caller, { kind: 'key' }>) {
  const admin = caller.role === 'admin'
  const keyFilter = admin ? undefined : eq(apiKeys.id, caller.keyId)
  const [spent] = await deps.db
    .select({ total: sql<string>`coalesce(sum(${apiKeys.spentMicros}), 0)` })
    .from(apiKeys)
    .where(keyFilter)
  const settledFilter = and(
    eq(settlements.status, 'SETTLED'),
    perCallX402,
    admin ? undefined : eq(settlements.keyId, caller.keyId),
  )
  const [x402] = await deps.db
    .select({
      total: sql<string>`coalesce(sum(${settlements.amountMicros}), 0)`,
      payers: sql<number>`count(distinct ${settlements.payer})`,
    })
    .from(settlements)
    .where(settledFilter)
  const revenue = BigInt(spent?.total ?? 0) + BigInt(x402?.total ?? 0)
  const base = {
    total_revenue_usdc: microsToUsdNumber(revenue),
    agents_tracked: Number(x402?.payers ?? 0),
    frozen: false,
  }
  if (!admin) return base
  const summary = deps.ledger
    ? await deps.ledger.summary()
    : { pending: 0, exhausted: 0, failed: 0, uncollectedMicros: 0n, queueDepth: 0 }
  const treasury = (await deps.treasuryBalance?.().catch(() => undefined)) ?? undefined
  return {
    ...base,
    treasury_balance_usdc: treasury === undefined ? 0 : microsToUsdNumber(treasury),
    treasury_balance_known: treasury !== undefined,
    pending_settlements: summary.pending,
    exhausted_settlements: summary.exhausted,
    failed_settlements: summary.failed,
    uncollected_usdc: microsToUsdNumber(summary.uncollectedMicros),
    settlement_configured: deps.settlementConfigured,
    solana_settlement_configured: deps.solanaSettlementConfigured,
    failed_settlement_queue_depth: summary.queueDepth,
  }
}
