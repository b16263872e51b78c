import path from 'node:path'
import type { Clock } from '../core/context.ts'
import {
  createProviderDirectory,
  PROVIDERS,
  type ProviderDirectory,
  type ProviderHealth,
  type ProviderRegistrations,
  type ProviderRuntime,
  publicEndpoint,
  statusOfCalls,
} from '../core/providers/index.ts'
import type { SanctionsListStatus, SanctionsService } from '../core/sanctions/index.ts'
import { type CircuitBreaker, createCircuitBreaker } from '../core/sources/index.ts'
import type { CompanySourceBreakers } from './company-sources.ts'
import type { Config } from './config.ts'
import { sanctionsSources } from './sanctions.ts'

/** One breaker per company source, created here so the sources and the provider list share them. */
export function createCompanySourceBreakers(clock: Clock): Required<CompanySourceBreakers> {
  const breaker = () => createCircuitBreaker({ clock })
  return { kvk: breaker(), kbo: breaker(), vies: breaker(), rdap: breaker(), dns: breaker(), tls: breaker() }
}

const fromBreaker = (breaker: CircuitBreaker, endpointUrl?: string): ProviderRuntime => ({
  ...(endpointUrl ? { endpointUrl } : {}),
  status: () => statusOfCalls(breaker.health()),
})

/** A list source as published: the URL without query (the official EU token aside), or a file's name only. */
function listEndpoint(source: string): string {
  if (/^https?:\/\//i.test(source))
    return source.includes('token=dG9rZW4tMjAxNw') ? source : publicEndpoint(source)
  return `file:${path.basename(source)}`
}

/**
 * A sanctions list as a provider: its refreshes are its calls (last confirmed current, last failed
 * read), its freshness its health: active when loaded and current, degraded when stale or still
 * loading, down when no copy could be loaded, not_configured without a source or stored copy.
 */
export function listProviderHealth(status: SanctionsListStatus): ProviderHealth {
  const health = {
    circuit_state: null,
    last_success_at: status.loaded?.checked_at.toISOString() ?? null,
    last_error:
      status.last_error && status.last_attempt_at
        ? { at: status.last_attempt_at.toISOString(), reason: status.last_error }
        : null,
    recent_calls: 0,
    recent_error_rate: null,
    window_minutes: 0,
  }
  if (status.loaded) {
    if (status.stale) return { status: 'degraded', reason: `stale: ${status.stale_reason}`, health }
    return { status: 'active', health }
  }
  if (status.state === 'not_configured') return { status: 'not_configured', reason: 'list_source_off' }
  if (status.state === 'loading')
    return { status: 'degraded', reason: 'loading: first download and parse in progress', health }
  return { status: 'down', reason: `not_loaded: ${status.last_error ?? 'unknown'}`, health }
}

export interface ProviderInputs {
  config: Config
  clock: Clock
  /** Where registered_at is kept (the service database). */
  registrations: ProviderRegistrations
  /** Whether the KBO open data are imported (the KBO source answers dataset_not_loaded until then). */
  kboImported: () => Promise<boolean>
  breakers: Required<CompanySourceBreakers>
  sanctions: Pick<SanctionsService, 'status'>
  /** The facilitator's breaker when x402 payments are on and use a facilitator. */
  facilitatorBreaker?: CircuitBreaker
  /** The deep check's sources that are configured, by provider key, with their breakers. */
  deepCheckBreakers: Partial<Record<'yente' | 'insolvency_nl' | 'gdelt' | 'credit_it', CircuitBreaker>>
  /** The agent checks' chain: its RPC breaker and the ERC-8004 registry addresses in use. */
  agentChain?: {
    breaker?: CircuitBreaker
    chainId: number
    registries: { identity: string; reputation: string }
  }
}

/**
 * The provider list of this deployment: each provider of core/providers/providers.ts with its
 * endpoint from config and its health measured from its calls (its circuit breaker's record, or
 * the list's refreshes and freshness). A provider added there gets its line here (without one it
 * is listed `not_configured`).
 */
export function buildProviderDirectory(inputs: ProviderInputs): ProviderDirectory {
  const { config, breakers, sanctions } = inputs
  const sources = sanctionsSources(config)
  const runtime: Record<string, ProviderRuntime> = {
    kbo: {
      status: async () =>
        (await inputs.kboImported())
          ? statusOfCalls(breakers.kbo.health())
          : { status: 'down', reason: 'dataset_not_loaded (set KBO_DATA_DIR to an extract)' },
    },
    vies: fromBreaker(breakers.vies, publicEndpoint(config.VIES_API_URL)),
    rdap: fromBreaker(breakers.rdap, publicEndpoint(config.RDAP_BOOTSTRAP_URL)),
    dns: fromBreaker(breakers.dns, config.DNS_SERVERS ? `dns://${config.DNS_SERVERS}` : undefined),
    tls: fromBreaker(breakers.tls),
  }
  if (config.KVK_API_KEY) runtime.kvk = fromBreaker(breakers.kvk, publicEndpoint(config.KVK_API_URL))
  for (const status of sanctions.status()) {
    const source = sources[status.list_key]
    runtime[status.list_key] = {
      ...(source ? { endpointUrl: listEndpoint(source) } : {}),
      status: () => {
        const now = sanctions.status().find((candidate) => candidate.list_key === status.list_key)
        return now ? listProviderHealth(now) : { status: 'not_configured' }
      },
    }
  }
  const agentBreaker = inputs.agentChain?.breaker
  if (config.BASE_RPC_URL) {
    runtime.base_rpc = {
      endpointUrl: publicEndpoint(config.BASE_RPC_URL, 'origin'),
      // Measured when the agent checks read Base mainnet; payment settlement calls are not.
      status: () =>
        agentBreaker && config.AGENT_CHAIN === 'base'
          ? statusOfCalls(agentBreaker.health())
          : { status: 'active' },
    }
  }
  if (inputs.agentChain && agentBreaker) {
    const { chainId, registries } = inputs.agentChain
    // A registry answers through the chain's RPC: its health is that RPC's measured calls.
    runtime.erc8004_identity = fromBreaker(agentBreaker, `eip155:${chainId}:${registries.identity}`)
    runtime.erc8004_reputation = fromBreaker(agentBreaker, `eip155:${chainId}:${registries.reputation}`)
  }
  const deep = inputs.deepCheckBreakers
  if (config.YENTE_URL && deep.yente)
    runtime.yente = fromBreaker(deep.yente, publicEndpoint(config.YENTE_URL))
  if (deep.insolvency_nl)
    runtime.insolvency_nl = fromBreaker(deep.insolvency_nl, publicEndpoint(config.CIR_URL))
  if (config.GDELT_DOC_URL !== 'off' && deep.gdelt)
    runtime.gdelt = fromBreaker(deep.gdelt, publicEndpoint(config.GDELT_DOC_URL))
  if (deep.credit_it) runtime.credit_it = fromBreaker(deep.credit_it, publicEndpoint(config.OPENAPI_RISK_URL))
  if (config.SOLANA_RPC_URL && config.SOLANA_FEE_PAYER_KEY) {
    runtime.solana_rpc = {
      endpointUrl: publicEndpoint(config.SOLANA_RPC_URL, 'origin'),
      status: () => ({ status: 'active' }),
    }
  }
  // Listed only when x402 payments are on and settle through it: a URL alone is not a use.
  if (config.X402_FACILITATOR_URL && inputs.facilitatorBreaker) {
    runtime.x402_facilitator = fromBreaker(
      inputs.facilitatorBreaker,
      publicEndpoint(config.X402_FACILITATOR_URL),
    )
  }
  return createProviderDirectory(PROVIDERS, runtime, {
    registrations: inputs.registrations,
    clock: inputs.clock,
  })
}
