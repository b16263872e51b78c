import { Hono } from 'hono'
import type { ApiKeyService } from '../../core/keys/index.ts'
import { CreateKeyInput } from '../../core/keys/index.ts'
import type { RateLimiter } from '../../core/limits/index.ts'
import type { MaintenanceState } from '../../core/maintenance/index.ts'
import type { AnyOperation } from '../../core/operations/index.ts'
import { parseWith } from '../../core/operations/parse.ts'
import type { ListHealth } from '../../core/sanctions/list-health.ts'
import { readMethodology } from '../../core/scoring/index.ts'
import type { AppEnv } from '../env.ts'
import { createHealthMonitor, type HealthMonitor } from '../health-monitor.ts'
import { buildOpenApiDocument } from '../openapi.ts'
import { rateLimitHeaders } from '../rate-limit-headers.ts'
import { clientAddress, readJsonBody } from '../request.ts'

export type { ListHealth } from '../../core/sanctions/list-health.ts'

export interface HealthProbe {
  version: string
  startedAt: Date
  database: { kind: string; ping(): Promise<boolean> }
  /** The sanctions lists; any list not loaded and current makes the status `degraded` (still 200). */
  lists?: () => ListHealth[]
  /** The maintenance switch: while on, the status is `maintenance` (still 200) and the body says why. */
  maintenance?: () => Promise<MaintenanceState>
  /**
   * The database pinged in the background (the service starts one), the lists read as they are
   * now; absent: pinged on a request when the last ping is more than a second old.
   */
  monitor?: HealthMonitor
}

/** Public routes: no key, no payment; never 401, 402 or 403 (spec: Errors). */
export function publicRoutes(options: {
  keys: Pick<ApiKeyService, 'create'>
  operations: readonly AnyOperation[]
  health: HealthProbe
  /** Counts key creations per client address and per e-mail; absent (RATE_LIMITS=off): unlimited. */
  limits?: Pick<RateLimiter, 'admitSignup'>
  /** Proxies in front that append to X-Forwarded-For (the client address of the key-creation limit). */
  trustProxyHops?: number
}) {
  const { keys, health, limits } = options
  const openapi = buildOpenApiDocument(options.operations, health.version)
  const monitor = health.monitor ?? createHealthMonitor(health)
  return new Hono<AppEnv>()
    .get('/health', async (c) => {
      const state = await monitor.current()
      const { reachable, lists } = state
      const listsOk = lists.every((list) => list.status === 'loaded')
      const maintenance = reachable ? await health.maintenance?.().catch(() => undefined) : undefined
      const body = {
        status: maintenance?.enabled ? 'maintenance' : reachable && listsOk ? 'ok' : 'degraded',
        version: health.version,
        database: { kind: health.database.kind, reachable },
        ...(maintenance
          ? {
              maintenance: {
                enabled: maintenance.enabled,
                ...(maintenance.enabled
                  ? {
                      message: maintenance.message,
                      retry_after_seconds: maintenance.retry_after_seconds,
                      since: maintenance.changed_at,
                    }
                  : {}),
              },
            }
          : {}),
        ...(health.lists ? { sanctions_lists: lists } : {}),
        uptime_s: Math.round((Date.now() - health.startedAt.getTime()) / 1000),
        checked_ms_ago: Math.max(0, Math.round(performance.now() - state.checkedAt)),
      }
      // Only a database that does not answer is a 503: without lists the service still serves
      // everything else (screens answer 503 themselves), so load balancers keep it in.
      return c.json(body, reachable ? 200 : 503)
    })
    .get('/openapi.json', (c) => c.json(openapi))
    .get('/v1/methodology', async (c) =>
      c.body(await readMethodology(), 200, { 'Content-Type': 'text/markdown; charset=utf-8' }),
    )
    .post('/v1/keys/create', async (c) => {
      const input = parseWith(CreateKeyInput, await readJsonBody(c))
      // Counted after validation (a malformed body uses up nothing), before the key exists; a
      // refusal is a 429 with Retry-After and X-RateLimit-* (http/problem.ts).
      const rateLimit = await limits?.admitSignup(clientAddress(c, options.trustProxyHops), input.email)
      if (rateLimit)
        for (const [name, value] of Object.entries(rateLimitHeaders(rateLimit))) c.header(name, value)
      const created = await keys.create(input)
      return c.json(
        {
          api_key: created.apiKey,
          key_id: created.record.id,
          email: created.record.email,
          tier: created.record.tier,
          mode: created.record.mode,
          note: 'Store this key now: it is shown once and cannot be retrieved again.',
        },
        201,
      )
    })
}
