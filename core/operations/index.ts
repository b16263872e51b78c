import { agentCheck } from './agent-check.ts'
import { complianceAlerts } from './compliance-alerts.ts'
import { dataInventory } from './data-inventory.ts'
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
import { reputationHistory } from './reputation-history.ts'
import { reputationScore } from './reputation-score.ts'
import { riskScore } from './risk-score.ts'
import { sanctionsScreen } from './sanctions-screen.ts'
import { usageEndpoints } from './usage-endpoints.ts'
import { usageSummary } from './usage-summary.ts'
import { walletBalance } from './wallet-balance.ts'
import { watchlistAdd, watchlistDelete, watchlistGet, watchlistList } from './watchlist.ts'
import { webhooksCreate, webhooksDelete, webhooksDeliveries, webhooksList, webhooksTest } from './webhooks.ts'

/**
 * The operation registry: every customer REST route under /v1 and every MCP tool comes from this
 * list, priced and free alike. Adding an operation is one file and one line here.
 */
export const operations: readonly AnyOperation[] = [
  entityCheck,
  riskScore,
  reputationScore,
  kybCheck,
  sanctionsScreen,
  reputationHistory,
  keysUsage,
  keysRevoke,
  financialHealth,
  entityDeepCheck,
  entityReport,
  reportGet,
  leadsVerify,
  agentCheck,
  walletBalance,
  providersList,
  dataInventory,
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

export {
  type AnyOperation,
  defineOperation,
  type HttpMethod,
  type OperationAccess,
  type OperationDefinition,
  type OperationHttp,
  pathParameters,
} from './define.ts'
export {
  type InvocationRequest,
  type InvocationResult,
  invokeOperation,
  type OperationRuntime,
  outcomeOf,
  parseQuality,
} from './invoke.ts'
export {
  companyCheckDeps,
  keyCallerOf,
  type OperationContext,
  type ServiceDeps,
} from './operation-context.ts'
export { x402DiscoveryOf } from './x402-discovery.ts'
