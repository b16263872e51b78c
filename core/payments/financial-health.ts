import type { KeyCaller } from '../context.ts'
import type { ApiKeyService } from '../keys/api-keys.ts'
import { microsToUsdNumber } from '../money.ts'
import type { SettlementLedger } from './ledger/settlement-ledger.ts'

export interface FinancialHealthDeps {
  keys: Pick<ApiKeyService, 'spentTotal'>
  ledger?: Pick<SettlementLedger, 'callRevenue' | 'summary'>
  /** Whether settlement (facilitator or on-chain key) is configured. */
  settlementConfigured: boolean
  solanaSettlementConfigured: boolean
  /** USDC held by the payTo address, when the chain can be asked (undefined: it cannot). */
  treasuryBalance?: () => Promise<bigint | undefined>
  /** True while the operator's maintenance switch is on (no call is accepted or charged). */
  frozen?: () => Promise<boolean>
}

/**
 * GET /v1/financial/health (spec: Resources, Financial health). Revenue is money earned by calls:
 * what keys spent from their prepaid balance plus settled per-call x402 payments (top-ups are
 * deposits, earned when spent). Settlement fields and the treasury are for operator keys only;
 * any other key sees the revenue attributed to itself. agents_tracked counts distinct x402 payers
 * whose payments settled. A treasury balance that could not be read (no RPC, no payTo, the chain
 * not answering) is null: reporting 0 would say the treasury is empty, which was not observed.
 */
export async function financialHealth(deps: FinancialHealthDeps, caller: KeyCaller) {
  const admin = caller.role === 'admin'
  const keyId = admin ? undefined : caller.keyId
  const [spent, x402] = await Promise.all([
    deps.keys.spentTotal(keyId),
    deps.ledger?.callRevenue(keyId) ?? { micros: 0n, payers: 0 },
  ])
  const revenue = spent + x402.micros
  const base = {
    total_revenue_usdc: microsToUsdNumber(revenue),
    agents_tracked: x402.payers,
    frozen: (await deps.frozen?.()) ?? false,
  }
  if (!admin) return base
  const summary = deps.ledger
    ? await deps.ledger.summary()
    : { pending: 0, exhausted: 0, failed: 0, unknown: 0, uncollectedMicros: 0n, queueDepth: 0 }
  const treasury = (await deps.treasuryBalance?.().catch(() => undefined)) ?? undefined
  return {
    ...base,
    treasury_balance_usdc: treasury === undefined ? null : microsToUsdNumber(treasury),
    pending_settlements: summary.pending,
    exhausted_settlements: summary.exhausted,
    failed_settlements: summary.failed,
    unknown_outcome_settlements: summary.unknown,
    uncollected_usdc: microsToUsdNumber(summary.uncollectedMicros),
    settlement_configured: deps.settlementConfigured,
    solana_settlement_configured: deps.solanaSettlementConfigured,
    failed_settlement_queue_depth: summary.queueDepth,
  }
}
