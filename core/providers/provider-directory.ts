import { createHash } from 'node:crypto'
import { type Clock, systemClock } from '../context.ts'
import type { CallHealth, CircuitState } from '../sources/circuit-breaker.ts'
import type { ProviderDefinition, ProviderKind, TrustLevel } from './providers.ts'

/**
 * A provider's health as GET /v1/providers reports it, from what the service measured of its
 * calls (never a constant):
 * - `active`: configured, and its recent calls answered (or none was made yet);
 * - `degraded`: answering on trial after failures (circuit half-open), failing part of its recent
 *   calls (20% or more, or its latest call), or a list copy that is stale or still loading;
 * - `down`: failing (circuit open, or every recent call failed), or a list never loaded;
 * - `not_configured`: the deployment does not use it (no API key, no URL, list source off).
 */
export type ProviderStatus = 'active' | 'degraded' | 'down' | 'not_configured'

/** What was measured of a provider's calls, as published. */
export interface MeasuredHealth {
  /** The circuit breaker's state; null for a provider without one (sanctions lists). */
  circuit_state: CircuitState | null
  last_success_at: string | null
  last_error: { at: string; reason: string } | null
  /** Calls within the window (at most the last 100). */
  recent_calls: number
  /** Share of those that failed, 0-1 (null without calls). */
  recent_error_rate: number | null
  window_minutes: number
}

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
  /** What was measured (absent when the service does not call it itself). */
  health?: MeasuredHealth
}

export interface ProviderItem {
  provider_id: string
  key: string
  name: string
  kind: ProviderKind
  endpoint_url: string
  supported_checks: string[]
  /** When the provider was first configured in this database (null: never). */
  registered_at: string | null
  status: ProviderStatus
  status_reason?: string
  health?: MeasuredHealth
  trust_level: TrustLevel
}

export interface ProviderDirectory {
  list(): Promise<ProviderItem[]>
  /** Records, once, when each configured provider was first seen configured in this database. */
  register(): Promise<void>
}

/** Where `registered_at` comes from: the first time each provider was configured in this database. */
export interface ProviderRegistrations {
  /** Records `keys` as configured at `at`, keeping the first date of a key already recorded. */
  record(keys: readonly string[], at: Date): Promise<void>
  /** Every recorded key with its first date. */
  all(): Promise<Map<string, Date>>
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

/** A breaker's measurements as published. */
export function measuredHealth(health: CallHealth): MeasuredHealth {
  return {
    circuit_state: health.state,
    last_success_at: health.last_success_at?.toISOString() ?? null,
    last_error: health.last_failure
      ? { at: health.last_failure.at.toISOString(), reason: health.last_failure.reason }
      : null,
    recent_calls: health.recent_calls,
    recent_error_rate:
      health.recent_calls === 0
        ? null
        : Math.round((health.recent_failures / health.recent_calls) * 100) / 100,
    window_minutes: Math.round(health.window_ms / 60_000),
  }
}

/** Share of recent calls failing from which a provider is `degraded`. */
export const DEGRADED_ERROR_RATE = 0.2

/**
 * A provider's status from its breaker's measurements (spec: Provider, status): `down` when the
 * circuit is open or every recent call failed; `degraded` when half-open, when 20% or more of the
 * recent calls failed, or when its latest call failed; `active` otherwise.
 */
export function statusOfCalls(health: CallHealth): ProviderHealth {
  const measured = measuredHealth(health)
  const last = health.last_failure?.reason ?? 'unknown'
  const lastFailed =
    health.last_failure !== null &&
    (health.last_success_at === null || health.last_failure.at >= health.last_success_at)
  if (health.state === 'open') return { status: 'down', reason: `circuit_open: ${last}`, health: measured }
  if (health.state === 'half_open')
    return { status: 'degraded', reason: `circuit_half_open: ${last}`, health: measured }
  if (health.recent_calls > 0 && health.recent_failures === health.recent_calls)
    return { status: 'down', reason: `every recent call failed: ${last}`, health: measured }
  const rate = health.recent_calls === 0 ? 0 : health.recent_failures / health.recent_calls
  if (rate >= DEGRADED_ERROR_RATE)
    return {
      status: 'degraded',
      reason: `${Math.round(rate * 100)}% of recent calls failed: ${last}`,
      health: measured,
    }
  if (lastFailed) return { status: 'degraded', reason: `latest call failed: ${last}`, health: measured }
  return { status: 'active', health: measured }
}

/**
 * The provider list: every definition with its runtime (a provider without one is
 * `not_configured`) and the date it was first configured in this database.
 */
export function createProviderDirectory(
  definitions: readonly ProviderDefinition[],
  runtime: Readonly<Record<string, ProviderRuntime>>,
  options: { registrations?: ProviderRegistrations; clock?: Clock } = {},
): ProviderDirectory {
  const { registrations } = options
  const clock = options.clock ?? systemClock

  async function healthOf(definition: ProviderDefinition): Promise<ProviderHealth> {
    const running = runtime[definition.key]
    if (!running) return { status: 'not_configured' }
    return Promise.resolve(running.status()).catch((error: unknown) => ({
      status: 'down' as const,
      reason: `status_unknown: ${error instanceof Error ? error.message : String(error)}`,
    }))
  }

  async function register(healths: readonly ProviderHealth[]): Promise<Map<string, Date>> {
    if (!registrations) return new Map()
    const known = await registrations.all()
    const fresh = definitions
      .filter(
        (definition, index) => healths[index]?.status !== 'not_configured' && !known.has(definition.key),
      )
      .map((definition) => definition.key)
    if (fresh.length === 0) return known
    await registrations.record(fresh, clock.now())
    return registrations.all()
  }

  return {
    async register() {
      await register(await Promise.all(definitions.map(healthOf)))
    },
    async list() {
      const healths = await Promise.all(definitions.map(healthOf))
      const registered = await register(healths)
      return definitions.map((definition, index): ProviderItem => {
        const running = runtime[definition.key]
        const health = healths[index] ?? { status: 'not_configured' }
        return {
          provider_id: uuidV5(definition.key),
          key: definition.key,
          name: definition.name,
          kind: definition.kind,
          endpoint_url: running?.endpointUrl ?? definition.default_endpoint,
          supported_checks: [...definition.supported_checks],
          registered_at: registered.get(definition.key)?.toISOString() ?? null,
          status: health.status,
          ...(health.reason ? { status_reason: health.reason } : {}),
          ...(health.health ? { health: health.health } : {}),
          trust_level: definition.trust_level,
        }
      })
    },
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
