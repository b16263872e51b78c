import { getReputationHistory } from '../core/checks/index.ts'
import { ServiceError } from '../core/errors.ts'
import type { OperationRuntime } from '../core/operations/invoke.ts'
import type { RouteModule } from './app.ts'
import { requireKey } from './request.ts'

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
export function reputationRoutes(runtime: OperationRuntime): RouteModule {
  return (app) => {
    app.get('/v1/reputation/history/:entity_hash', async (c) => {
      const caller = await requireKey(runtime.keys, c)
      const history = await getReputationHistory(runtime.deps.checks, caller, c.req.param('entity_hash'), {
        limit: intParam(c.req.query('limit'), 'limit'),
        offset: intParam(c.req.query('offset'), 'offset'),
      })
      return c.json(history)
    })
  }
}
