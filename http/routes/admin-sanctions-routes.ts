import { Hono } from 'hono'
import type { ApiKeyService } from '../../core/keys/index.ts'
import {
  AdminRefreshInput,
  listsReport,
  type MonitoringOperatorDeps,
  refreshNow,
} from '../../core/monitoring/operator-view.ts'
import { parseWith } from '../../core/operations/parse.ts'
import type { AppEnv } from '../env.ts'
import { requireKey, requireOperator } from '../middleware/require-key.ts'
import { readJsonBody } from '../request.ts'

/**
 * Operator routes of the sanctions lists and their alerts, mounted at the
 * root: `POST /v1/admin/sanctions/refresh` (an empty body is allowed) and
 * `GET /v1/admin/sanctions/lists`. Customers get 403 like every other admin route.
 */
export function adminSanctionsRoutes(
  keys: Pick<ApiKeyService, 'authenticate'>,
  deps: MonitoringOperatorDeps,
) {
  return new Hono<AppEnv>()
    .use('/v1/admin/sanctions/*', requireKey(keys), requireOperator())
    .post('/v1/admin/sanctions/refresh', async (c) => {
      const hasBody = (c.req.header('content-length') ?? '0') !== '0' || c.req.header('transfer-encoding')
      const body = hasBody ? await readJsonBody(c) : {}
      const input = parseWith(AdminRefreshInput, body)
      return c.json(await refreshNow(deps, input))
    })
    .get('/v1/admin/sanctions/lists', async (c) => c.json(await listsReport(deps)))
}
