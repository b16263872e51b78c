import { createHash } from 'node:crypto'
import type { CircuitState } from '../sources/circuit-breaker.ts'
import type { ProviderDefinition, ProviderKind, TrustLevel } from './providers.ts'

/**
 * A provider's health as GET /v1/providers reports it:
 * - `active`: configured and answering (circuit closed, list loaded and current);
 * - `degraded`: answering on trial after failures (circuit half-open), or a list copy that is stale;
 * - `unavailable`: failing (circuit open), or a list never loaded;
 * - `not_configured`: the deployment does not use it (no API key, no URL, list source off).
 */
export type ProviderStatus = 'active' | 'degraded' | 'unavailable' | 'not_configured'

/** What the running service knows about one provider: how it is reached and how it is doing. */
export interface ProviderRuntime {
  /** The endpoint in use (secrets removed); absent: the definition's default. */
  endpointUrl?: string
  /** May read stored state (e.g. whether the KBO open data are imported). */
  status(): ProviderHealth | Promise<ProviderHealth>
}

export interface ProviderHealth {
  status: ProviderStatus
  reason?: string
}

export interface ProviderItem {
  provider_id: string
  key: string
  name: string
  kind: ProviderKind
  endpoint_url: string
  supported_checks: string[]
  registered_at: string
  status: ProviderStatus
  status_reason?: string
  trust_level: TrustLevel
}

export interface ProviderDirectory {
  list(): Promise<ProviderItem[]>
}

/** Namespace of this service's provider UUIDs (UUID v5, RFC 9562 section 5.5). */
const PROVIDER_NAMESPACE = '3b9d6c1e-6a4f-4d8e-9f7a-2c5e8b1d4a60'

/** UUID v5 (SHA-1, name-based) of `name` in `namespace`: the same name always gives the same id. */
export function uuidV5(name: string, namespace: string = PROVIDER_NAMESPACE): string {
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16)
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A circuit breaker's state as a provider status (spec: Provider, status). */
export function statusOfCircuit(state: CircuitState): ProviderHealth {
  if (state === 'closed') return { status: 'active' }
  if (state === 'half_open') return { status: 'degraded', reason: 'circuit_half_open' }
  return { status: 'unavailable', reason: 'circuit_open' }
}

/** The provider list: every definition with its runtime (a provider without one is `not_configured`). */
export function createProviderDirectory(
  definitions: readonly ProviderDefinition[],
  runtime: Readonly<Record<string, ProviderRuntime>>,
): ProviderDirectory {
  return {
    list: () =>
      Promise.all(
        definitions.map(async (definition): Promise<ProviderItem> => {
          const running = runtime[definition.key]
          const health: ProviderHealth = running
            ? await Promise.resolve(running.status()).catch((error: unknown) => ({
                status: 'unavailable' as const,
                reason: `status_unknown: ${error instanceof Error ? error.message : String(error)}`,
              }))
            : { status: 'not_configured' }
          return {
            provider_id: uuidV5(definition.key),
            key: definition.key,
            name: definition.name,
            kind: definition.kind,
            endpoint_url: running?.endpointUrl ?? definition.default_endpoint,
            supported_checks: [...definition.supported_checks],
            registered_at: definition.registered_at,
            status: health.status,
            ...(health.reason ? { status_reason: health.reason } : {}),
            trust_level: definition.trust_level,
          }
        }),
      ),
  }
}

/**
 * An endpoint fit to publish: no credentials, query string or fragment; `origin` keeps only the
 * scheme and host (RPC URLs often carry an API key in the path).
 */
export function publicEndpoint(url: string, keep: 'origin' | 'path' = 'path'): string {
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return url
    return keep === 'origin' ? parsed.origin : `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`
  } catch {
    return 'unknown'
  }
}
