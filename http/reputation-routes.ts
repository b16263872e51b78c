import type { Hono } from 'hono'
import { getReputationHistory } from '../core/checks/index.ts'
import { ServiceError } from '../core/errors.ts'
import type { OperationRuntime } from '../core/operations/invoke.ts'

const intParam = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined || value === '') return undefined
  if (!/^\d{1,6}$/.test(value)) {
    throw new ServiceError('validation_failed', 'invalid request', {
      fields: [{ field: name, message: 'must be a non-negative integer' }],
    })
  }
  return Number(value)
}

/**
 * GET /v1/reputation/history/{entity_hash} (X-API-Key required, free): the caller's stored
 * checks of one entity. 404 for an unknown hash and for another key's (spec: Errors).
 */
// biome-ignore lint/suspicious/noExplicitAny: mounts on the app whatever its Env
export function reputationRoutes(runtime: OperationRuntime): (app: Hono<any>) => void {
  return (app) => {
    app.get('/v1/reputation/history/:entity_hash', async (c) => {
      const caller = await runtime.keys.authenticate(c.req.header('x-api-key'))
      if (caller.kind !== 'key') throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
      const history = await getReputationHistory(runtime.deps.checks, caller, c.req.param('entity_hash'), {
        limit: intParam(c.req.query('limit'), 'limit'),
        offset: intParam(c.req.query('offset'), 'offset'),
      })
      return c.json(history)
    })
  }
}
