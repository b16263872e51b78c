import { Hono } from 'hono'
import { ServiceError } from '../../core/errors.ts'
import {
  AdminCreateKeyInput,
  AdminCreditInput,
  AdminExpireInput,
  type ApiKeyService,
  keyUsageView,
} from '../../core/keys/index.ts'
import { usd } from '../../core/money.ts'
import { parseWith } from '../../core/operations/parse.ts'
import type { AppEnv } from '../env.ts'
import { requireKey, requireOperator } from '../middleware/require-key.ts'
import { readJsonBody } from '../request.ts'

/**
 * Operator routes, mounted at `/v1/admin`: customers get 403 for every path below it, known or
 * not (spec: Permissions). HTTP only, never MCP tools.
 */
export function adminRoutes(
  keys: Pick<ApiKeyService, 'authenticate' | 'create' | 'credit' | 'revoke' | 'expire'>,
) {
  return new Hono<AppEnv>()
    .use('*', requireKey(keys), requireOperator())
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
      const input = parseWith(AdminCreditInput, await readJsonBody(c))
      const record = await keys.credit(c.req.param('key_id'), usd(input.amount_usd))
      return c.json(keyUsageView(record))
    })
    .post('/keys/:key_id/revoke', async (c) => {
      const record = await keys.revoke(c.req.param('key_id'))
      if (!record) throw new ServiceError('not_found', 'unknown key')
      return c.json(keyUsageView(record))
    })
    .post('/keys/:key_id/expire', async (c) => {
      const input = parseWith(AdminExpireInput, await readJsonBody(c))
      const requested = input.expires_at ? new Date(input.expires_at) : new Date()
      const record = await keys.expire(c.req.param('key_id'), requested)
      if (!record) throw new ServiceError('not_found', 'unknown key')
      return c.json(keyUsageView(record))
    })
}
