import { agentCheck } from './agent-check.ts'
import { complianceAlerts } from './compliance-alerts.ts'
import { dataInventory } from './data-inventory.ts'
import { dataPurge } from './data-purge.ts'
import type { AnyOperation } from './define.ts'
import { entityCheck } from './entity-check.ts'
import { entityDeepCheck } from './entity-deep-check.ts'
import { entityReport, reportGet } from './entity-report.ts'
import { financialHealth } from './financial-health.ts'
import { keysRevoke } from './keys-revoke.ts'
import { keysUsage } from './keys-usage.ts'
import { kybCheck } from './kyb-check.ts'
import { leadsVerify } from './leads-verify.ts'
import { providersList } from './providers-list.ts'
import { reportShare, reportShareRevoke } from './report-share.ts'
import { reputationHistory } from './reputation-history.ts'
import { reputationScore } from './reputation-score.ts'
import { riskScore } from './risk-score.ts'
import {
  sanctionsDismissalCreate,
  sanctionsDismissalDelete,
  sanctionsDismissalList,
} from './sanctions-dismissals.ts'
import { sanctionsScreen } from './sanctions-screen.ts'
import { usageEndpoints } from './usage-endpoints.ts'
import { usageSummary } from './usage-summary.ts'
import { walletBalance } from './wallet-balance.ts'
import { watchlistAdd, watchlistDelete, watchlistGet, watchlistList } from './watchlist.ts'
import { webhooksCreate, webhooksDelete, webhooksDeliveries, webhooksList, webhooksTest } from './webhooks.ts'

/**
 * The operation registry: every MCP tool, and every customer route under /v1 except the key and
 * payment routes (key creation, top-ups, the badge, methodology, legal texts, self-verify, the
 * operator routes), which http/routes/ serves.
 * Adding a priced operation: its file, its line here, its price row (core/payments/pricing.ts)
 * and its test.
 */
export const operations: readonly AnyOperation[] = [
  entityCheck,
  riskScore,
  reputationScore,
  kybCheck,
  sanctionsScreen,
  sanctionsDismissalCreate,
  sanctionsDismissalList,
  sanctionsDismissalDelete,
  reputationHistory,
  keysUsage,
  keysRevoke,
  financialHealth,
  entityDeepCheck,
  entityReport,
  reportGet,
  reportShare,
  reportShareRevoke,
  leadsVerify,
  agentCheck,
  walletBalance,
  providersList,
  dataInventory,
  dataPurge,
  complianceAlerts,
  watchlistAdd,
  watchlistList,
  watchlistGet,
  watchlistDelete,
  webhooksCreate,
  webhooksList,
  webhooksDelete,
  webhooksTest,
  webhooksDeliveries,
  usageSummary,
  usageEndpoints,
] as AnyOperation[]

/** The operations a sandbox key gets a deterministic mock of, free (the rest refuse or run). */
export const sandboxMockIds: readonly string[] = operations
  .filter((operation) => operation.access.sandbox === 'mock')
  .map((operation) => operation.id)
