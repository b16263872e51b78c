import { type Context, Hono } from 'hono'
import { ServiceError } from '../../core/errors.ts'
import {
  AdminCreateKeyInput,
  AdminCreditInput,
  AdminExpireInput,
  AdminKeyPath,
  type ApiKeyService,
  keyUsageView,
} from '../../core/keys/index.ts'
import { MaintenanceInput, type MaintenanceSwitch } from '../../core/maintenance/index.ts'
import { usd } from '../../core/money.ts'
import { parseWith } from '../../core/operations/parse.ts'
import type { AppEnv } from '../env.ts'
import { requireKey, requireOperator } from '../middleware/require-key.ts'
import { readJsonBody } from '../request.ts'

/** The `{key_id}` of the route, checked before it reaches the database (422 naming key_id). */
function keyIdOf(c: Context<AppEnv>): string {
  return parseWith(AdminKeyPath, { key_id: c.req.param('key_id') }).key_id
}

/**
 * Operator routes, mounted at `/v1/admin`: customers get 403 for every path below it, known or
 * not (spec: Permissions). HTTP only, never MCP tools.
 */
export function adminRoutes(
  keys: Pick<ApiKeyService, 'authenticate' | 'create' | 'credit' | 'revoke' | 'expire'>,
  maintenance?: MaintenanceSwitch,
) {
  const app = new Hono<AppEnv>().use('*', requireKey(keys), requireOperator())
  if (maintenance) {
    // The maintenance switch: GET shows it, PUT turns it on or off for every process on the database.
    app
      .get('/maintenance', async (c) => c.json(await maintenance.current()))
      .put('/maintenance', async (c) => {
        const input = parseWith(MaintenanceInput, await readJsonBody(c))
        return c.json(await maintenance.set(input, 'admin_api'))
      })
  }
  return app
    .post('/keys', async (c) => {
      const input = parseWith(AdminCreateKeyInput, await readJsonBody(c))
      const created = await keys.create({
        email: input.email,
        tier: input.tier,
        balance: usd(input.balance_usd),
      })
      return c.json({ api_key: created.apiKey, ...keyUsageView(created.record) }, 201)
    })
    .post('/keys/:key_id/credit', async (c) => {
      const keyId = keyIdOf(c)
      const input = parseWith(AdminCreditInput, await readJsonBody(c))
      const record = await keys.credit(keyId, usd(input.amount_usd))
      return c.json(keyUsageView(record))
    })
    .post('/keys/:key_id/revoke', async (c) => {
      const record = await keys.revoke(keyIdOf(c))
      if (!record) throw new ServiceError('not_found', 'unknown key')
      return c.json(keyUsageView(record))
    })
    .post('/keys/:key_id/expire', async (c) => {
      const keyId = keyIdOf(c)
      const input = parseWith(AdminExpireInput, await readJsonBody(c))
      const requested = input.expires_at ? new Date(input.expires_at) : new Date()
      const record = await keys.expire(keyId, requested)
      if (!record) throw new ServiceError('not_found', 'unknown key')
      return c.json(keyUsageView(record))
    })
}
