import type { CheckStore } from '../checks/check-store.ts'
import type { CompanyCheckDeps } from '../checks/company-check.ts'
import type { CompanySources } from '../checks/company-sources.ts'
import type { DeepCheckSources } from '../checks/deep-check.ts'
import type { SanctionsNameScreen } from '../checks/sanctions-name-screen.ts'
import type { Caller, Clock, KeyCaller, Quality } from '../context.ts'
import { ServiceError } from '../errors.ts'
import type { ApiKeyService } from '../keys/api-keys.ts'
import type { MonitoringPort } from '../monitoring/monitoring-port.ts'
import type { FinancialHealthDeps } from '../payments/financial-health.ts'
import type { ProviderDirectory } from '../providers/provider-directory.ts'
import type { ReportSigner } from '../reports/evidence.ts'
import type { ReportShares } from '../reports/report-shares.ts'
import type { ReportStore } from '../reports/report-store.ts'
import type { DataInventoryItem } from '../retention/data-inventory.ts'
import type { DataPurge } from '../retention/data-purge.ts'
import type { DismissalStore } from '../sanctions/dismissal-store.ts'
import type { SanctionsService } from '../sanctions/sanctions-service.ts'
import type { AgentChainReader } from '../sources/agent-chain.ts'
import type { UsageReports } from '../usage/usage-reports.ts'

/**
 * Every port the service offers its operations, injected (CONVENTIONS 2). The composition root in
 * `server/` builds it once. An operation sees only the ports it declares (`ports` in its
 * definition, `Ports<…>` in its context), so its type says what it uses. A port may be absent
 * from a composition (a source not configured, a test wiring only what it needs): the operation's
 * essential-parts check turns that into a 503 that charges nothing, or the part into `unavailable`
 * (never clean).
 */
export interface ServiceDeps {
  /** Company registers, VIES and domain sources for entity, risk, reputation and KYB checks. */
  companySources?: CompanySources
  /** Name screening against the sanctions lists; absent: sanctions findings are unavailable. */
  sanctions?: SanctionsNameScreen
  /** The sanctions lists held in memory (screen by name, wallet address, registration); absent: not loaded. */
  sanctionsLists?: SanctionsService
  /** Stored company checks (history, cached tier); absent: nothing is stored. */
  checks?: CheckStore
  /** The key records (GET /v1/keys/usage, POST /v1/keys/revoke). */
  keys?: Pick<ApiKeyService, 'get' | 'revoke'>
  /** Revenue and settlement figures (GET /v1/financial/health). */
  financial?: FinancialHealthDeps
  /** PEP/RCA, Dutch insolvency, adverse media and credit sources of the deep check and reports. */
  deepCheck?: DeepCheckSources
  /** Stored reports, the report signing key and the public JWKS address (entity reports). */
  reports?: { store: ReportStore; signer: ReportSigner; jwksUrl: string; shares?: ReportShares }
  /** Base chain reads for agent checks and wallet balances; absent: those parts are unavailable. */
  agentChain?: Pick<AgentChainReader, 'chainId' | 'readWallet'>
  /** The ERC-8004 registry addresses the chain reader uses (reported in agent checks). */
  agentRegistries?: { identity: string; reputation: string }
  /** The upstream providers with their live status (GET /v1/providers). */
  providers?: ProviderDirectory
  /** The stored data categories with live figures (GET /v1/data/inventory). */
  dataInventory?: { read(caller: KeyCaller): Promise<DataInventoryItem[]> }
  /** Compliance alerts, watchlists and webhooks; absent: those operations answer 503. */
  monitoring?: MonitoringPort
  /** The calling key's usage (GET /v1/usage/summary, /v1/usage/endpoints). */
  usage?: UsageReports
  /** Dismissed sanctions matches per key; absent: dismissals answer 503 and screens show none. */
  dismissals?: DismissalStore
  /** Erasure on request (POST /v1/data/purge); absent: 503. */
  purge?: DataPurge
}

/** The name of one port of {@link ServiceDeps}. */
export type PortName = keyof ServiceDeps

/** The ports an operation declared, and only those. */
export type Ports<P extends PortName> = Pick<ServiceDeps, P>

/**
 * What one operation call runs with: the caller, the tier asked for, the clock and the ports the
 * operation declared (`P`; a helper names the ports it reads, and any operation that declares at
 * least those may call it).
 */
export interface OperationContext<P extends PortName = never> {
  caller: Caller
  quality: Quality
  clock: Clock
  requestId: string
  deps: Ports<P>
  /**
   * Keeps something this call produced (a stored check, a history row) once the call is paid
   * for: the write runs after the payment settled and is dropped when it did not, so nothing an
   * unpaid call produced is ever stored, served or reused.
   */
  afterPayment(write: () => Promise<void>): void
}

/** The ports of a company check (registers, VIES, domain, sanctions) from an operation's context. */
export function companyCheckDeps(ctx: OperationContext<'companySources' | 'sanctions'>): CompanyCheckDeps {
  return { sources: ctx.deps.companySources ?? {}, sanctions: ctx.deps.sanctions, clock: ctx.clock }
}

/** The calling key of a key-only operation (the pipeline already refused keyless calls of free operations). */
export function keyCallerOf(ctx: OperationContext): KeyCaller {
  if (ctx.caller.kind !== 'key') throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
  return ctx.caller
}
