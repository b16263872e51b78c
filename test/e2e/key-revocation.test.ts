import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Service } from '../../server/compose.ts'
import { createTestService, TEST_ADMIN_KEY } from '../support/service.ts'

type Json = Record<string, unknown>

/** A holder revokes its own key; the operator revokes or expires any key. */
describe('key revocation and expiry', () => {
  let service: Service

  const call = async (method: string, path: string, apiKey: string | undefined, body?: unknown) => {
    const response = await service.app.request(path, {
      method,
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as Json }
  }

  const fundedKey = async (balance_usd: number) => {
    const created = await call('POST', '/v1/admin/keys', TEST_ADMIN_KEY, {
      email: 'holder@example.com',
      tier: 'pro',
      balance_usd,
    })
    expect(created.status).toBe(201)
    return { apiKey: created.body.api_key as string, keyId: created.body.key_id as string }
  }

  beforeAll(async () => {
    service = await createTestService('pglite')
  })
  afterAll(async () => {
    await service?.close()
  })

  it('lets a holder revoke its own key, stating the forfeited balance; the key gets 401 at once', async () => {
    const { apiKey, keyId } = await fundedKey(12.5)
    expect((await call('POST', '/v1/keys/revoke', apiKey, {})).body).toMatchObject({
      status: 400,
      detail: [{ field: 'confirm', message: 'is required' }],
    })
    const revoked = await call('POST', '/v1/keys/revoke', apiKey, { confirm: true })
    expect(revoked.status).toBe(200)
    expect(revoked.body).toMatchObject({
      key_id: keyId,
      status: 'revoked',
      balance_forfeited_micros: 12_500_000,
      balance_forfeited_usdc: '12.500000',
    })
    const after = await call('GET', '/v1/keys/usage', apiKey)
    expect(after).toMatchObject({ status: 401, body: { detail: 'API key revoked' } })
    expect((await call('POST', '/v1/keys/revoke', apiKey, { confirm: true })).status).toBe(401)
  })

  it('refuses to revoke the operator key', async () => {
    expect((await call('POST', '/v1/keys/revoke', TEST_ADMIN_KEY, { confirm: true })).status).toBe(403)
  })

  it('lets the operator revoke or expire any key; customers get 403 there', async () => {
    const first = await fundedKey(1)
    const second = await fundedKey(1)
    expect((await call('POST', `/v1/admin/keys/${second.keyId}/revoke`, first.apiKey)).status).toBe(403)

    const revoked = await call('POST', `/v1/admin/keys/${first.keyId}/revoke`, TEST_ADMIN_KEY)
    expect(revoked).toMatchObject({ status: 200, body: { status: 'revoked', balance_micros: 1_000_000 } })
    expect((await call('GET', '/v1/keys/usage', first.apiKey)).status).toBe(401)

    const later = await call('POST', `/v1/admin/keys/${second.keyId}/expire`, TEST_ADMIN_KEY, {
      expires_at: '2099-01-01T00:00:00Z',
    })
    expect(later).toMatchObject({ status: 200, body: { expires_at: '2099-01-01T00:00:00.000Z' } })
    expect((await call('GET', '/v1/keys/usage', second.apiKey)).status).toBe(200)
    const now = await call('POST', `/v1/admin/keys/${second.keyId}/expire`, TEST_ADMIN_KEY, {})
    expect(now.status).toBe(200)
    expect(await call('GET', '/v1/keys/usage', second.apiKey)).toMatchObject({
      status: 401,
      body: { detail: 'API key expired' },
    })

    expect((await call('POST', '/v1/admin/keys/no-such-key/revoke', TEST_ADMIN_KEY)).status).toBe(404)
    const bad = await call('POST', `/v1/admin/keys/${second.keyId}/expire`, TEST_ADMIN_KEY, {
      expires_at: 'tomorrow',
    })
    expect(bad).toMatchObject({ status: 422, body: { detail: [{ field: 'expires_at' }] } })
  })

  it('refuses a key id with a NUL or another control character with 422 naming key_id, on every operator key route', async () => {
    const { apiKey, keyId } = await fundedKey(1)
    for (const id of ['%00', `${keyId}%00`, '%01abc', '%7F', '%C2%85']) {
      for (const [action, body] of [
        ['revoke', undefined],
        ['expire', {}],
        ['credit', { amount_usd: 1 }],
      ] as const) {
        const refused = await call('POST', `/v1/admin/keys/${id}/${action}`, TEST_ADMIN_KEY, body)
        expect(refused, `${action} ${id}`).toMatchObject({
          status: 422,
          body: { detail: [{ field: 'key_id', message: expect.stringMatching(/control character/) }] },
        })
      }
    }
    // Nothing was changed: the key still works with its balance.
    expect(await call('GET', '/v1/keys/usage', apiKey)).toMatchObject({
      status: 200,
      body: { balance_micros: 1_000_000 },
    })
  })
})
