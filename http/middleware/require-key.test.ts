import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { Caller } from '../../core/context.ts'
import { ServiceError } from '../../core/errors.ts'
import type { AppEnv } from '../env.ts'
import { sendProblem, toProblem } from '../problem.ts'
import { keyCaller, requireKey, requireOperator } from './require-key.ts'

const CALLERS: Record<string, Caller> = {
  customer: { kind: 'key', keyId: 'k1', tier: 'pro', mode: 'live', role: 'customer' },
  operator: { kind: 'key', keyId: 'admin', tier: 'enterprise', mode: 'live', role: 'admin' },
}
const keys = {
  authenticate: async (presented: string | undefined): Promise<Caller> => {
    if (presented === undefined) return { kind: 'anonymous' }
    const caller = CALLERS[presented]
    if (!caller) throw new ServiceError('unauthorized', 'invalid API key')
    return caller
  },
}

const app = new Hono<AppEnv>()
  .onError((error, c) => sendProblem(c, toProblem(error, 'test')))
  .get('/mine', requireKey(keys), (c) => c.json({ keyId: keyCaller(c).keyId }))
  .get('/ops', requireKey(keys), requireOperator(), (c) => c.json({ ok: true }))

const get = (path: string, key?: string) => app.request(path, { headers: key ? { 'x-api-key': key } : {} })

describe('key guards', () => {
  it('requireKey answers 401 without a key and for a bad key, and hands the caller on', async () => {
    expect((await get('/mine')).status).toBe(401)
    expect((await get('/mine', 'nope')).status).toBe(401)
    const ok = await get('/mine', 'customer')
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ keyId: 'k1' })
  })

  it('requireOperator answers 403 Insufficient role to customer keys, whatever their tier', async () => {
    const refused = await get('/ops', 'customer')
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ detail: 'Insufficient role' })
    expect((await get('/ops', 'operator')).status).toBe(200)
    expect((await get('/ops')).status).toBe(401)
  })
})
