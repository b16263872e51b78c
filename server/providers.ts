import path from 'node:path'
import type { Clock } from '../core/context.ts'
import {
  createProviderDirectory,
  PROVIDERS,
  type ProviderDirectory,
  type ProviderRuntime,
  publicEndpoint,
  statusOfCircuit,
} from '../core/providers/index.ts'
import type { SanctionsService } from '../core/sanctions/index.ts'
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
  status: () => statusOfCircuit(breaker.state()),
})

/** A list source as published: the URL without query (the official EU token aside), or a file's name only. */
function listEndpoint(source: string): string {
  if (/^https?:\/\//i.test(source))
    return source.includes('token=dG9rZW4tMjAxNw') ? source : publicEndpoint(source)
  return `file:${path.basename(source)}`
}

export interface ProviderInputs {
  config: Config
  /** Whether the KBO open data are imported (the KBO source answers dataset_not_loaded until then). */
  kboImported: () => Promise<boolean>
  breakers: Required<CompanySourceBreakers>
  sanctions: Pick<SanctionsService, 'status'>
  facilitatorBreaker?: CircuitBreaker
  /** The agent checks' chain: its RPC breaker and the ERC-8004 registry addresses in use. */
  agentChain?: {
    breaker?: CircuitBreaker
    chainId: number
    registries: { identity: string; reputation: string }
  }
}

/**
 * The provider list of this deployment: each provider of core/providers/providers.ts with its
 * endpoint from config and its health (circuit breaker; list loaded and fresh). A provider added
 * there gets its line here (without one it is listed `not_configured`).
 */
export function buildProviderDirectory(inputs: ProviderInputs): ProviderDirectory {
  const { config, breakers, sanctions } = inputs
  const sources = sanctionsSources(config)
  const runtime: Record<string, ProviderRuntime> = {
    kbo: {
      status: async () =>
        (await inputs.kboImported())
          ? statusOfCircuit(breakers.kbo.state())
          : { status: 'unavailable', reason: 'dataset_not_loaded (set KBO_DATA_DIR to an extract)' },
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
        if (!now?.loaded) {
          return now?.configured
            ? {
                status: 'unavailable',
                reason: now.last_error ? `not_loaded: ${now.last_error}` : 'not_loaded',
              }
            : { status: 'not_configured', reason: 'list_source_off' }
        }
        if (now.stale) return { status: 'degraded', reason: 'stale' }
        return { status: 'active' }
      },
    }
  }
  const agentBreaker = inputs.agentChain?.breaker
  if (config.BASE_RPC_URL) {
    runtime.base_rpc = {
      endpointUrl: publicEndpoint(config.BASE_RPC_URL, 'origin'),
      status: () =>
        agentBreaker && config.AGENT_CHAIN === 'base'
          ? statusOfCircuit(agentBreaker.state())
          : { status: 'active' },
    }
  }
  if (inputs.agentChain && agentBreaker) {
    const { chainId, registries } = inputs.agentChain
    // A registry answers through the chain's RPC: its health is that RPC's circuit.
    runtime.erc8004_identity = fromBreaker(agentBreaker, `eip155:${chainId}:${registries.identity}`)
    runtime.erc8004_reputation = fromBreaker(agentBreaker, `eip155:${chainId}:${registries.reputation}`)
  }
  if (config.SOLANA_RPC_URL && config.SOLANA_FEE_PAYER_KEY) {
    runtime.solana_rpc = {
      endpointUrl: publicEndpoint(config.SOLANA_RPC_URL, 'origin'),
      status: () => ({ status: 'active' }),
    }
  }
  if (config.X402_FACILITATOR_URL && inputs.facilitatorBreaker) {
    runtime.x402_facilitator = fromBreaker(
      inputs.facilitatorBreaker,
      publicEndpoint(config.X402_FACILITATOR_URL),
    )
  }
  return createProviderDirectory(PROVIDERS, runtime)
}
