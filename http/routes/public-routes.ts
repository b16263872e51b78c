import { Hono } from 'hono'
import type { ApiKeyService } from '../../core/keys/index.ts'
import { CreateKeyInput } from '../../core/keys/index.ts'
import type { AnyOperation } from '../../core/operations/index.ts'
import { parseWith } from '../../core/operations/parse.ts'
import { readMethodology } from '../../core/scoring/index.ts'
import type { AppEnv } from '../env.ts'
import { buildOpenApiDocument } from '../openapi.ts'
import { readJsonBody } from '../request.ts'

/** One sanctions list as /health reports it. */
export interface ListHealth {
  list_key: string
  /** loaded (and current), stale (loaded, refreshes failing), loading (first read pending), unavailable. */
  status: 'loaded' | 'stale' | 'loading' | 'unavailable'
  reason?: string
  as_of?: string
  entries?: number
}

export interface HealthProbe {
  version: string
  startedAt: Date
  database: { kind: string; ping(): Promise<boolean> }
  /** The sanctions lists; any list not loaded and current makes the status `degraded` (still 200). */
  lists?: () => ListHealth[]
}

/** Public routes: no key, no payment; never 401, 402 or 403 (spec: Errors). */
export function publicRoutes(options: {
  keys: Pick<ApiKeyService, 'create'>
  operations: readonly AnyOperation[]
  health: HealthProbe
}) {
  const { keys, health } = options
  const openapi = buildOpenApiDocument(options.operations, health.version)
  return new Hono<AppEnv>()
    .get('/health', async (c) => {
      const reachable = await health.database.ping()
      const lists = health.lists?.() ?? []
      const listsOk = lists.every((list) => list.status === 'loaded')
      const body = {
        status: reachable && listsOk ? 'ok' : 'degraded',
        version: health.version,
        database: { kind: health.database.kind, reachable },
        ...(health.lists ? { sanctions_lists: lists } : {}),
        uptime_s: Math.round((Date.now() - health.startedAt.getTime()) / 1000),
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
