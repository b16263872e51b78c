import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { usd } from '../../core/money.ts'
import type { Service } from '../../server/compose.ts'
import { DATABASE_KINDS } from '../support/database.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'
import { createTestService, TEST_ADMIN_KEY } from '../support/service.ts'

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field in assertions
type Body = Record<string, any>

/**
 * Maintenance mode: the operator switches it on and off (PUT /v1/admin/maintenance); while on,
 * priced and key routes answer 503 with the operator's message and Retry-After and charge nothing
 * (REST and MCP); /health and the public routes keep answering and say so.
 */
describe.each(DATABASE_KINDS)('maintenance mode (%s)', (kind) => {
  let service: Service
  let key: string
  let keyId: string

  beforeAll(async () => {
    service = await createTestService(kind, {
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    })
    await service.runtime.deps.sanctionsLists?.idle()
    const created = await service.runtime.keys.create({
      email: 'm@example.com',
      tier: 'pro',
      balance: usd('5'),
    })
    key = created.apiKey
    keyId = created.record.id
  }, 120_000)
  afterAll(async () => {
    await service?.close()
  })

  async function call(method: string, path: string, apiKey: string | null, body?: unknown) {
    const response = await service.app.request(path, {
      method,
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, headers: response.headers, body: (await response.json()) as Body }
  }
  const balance = async () => (await service.runtime.keys.get(keyId))!.balanceMicros

  it('is switched by the operator only, and GET shows it', async () => {
    expect((await call('GET', '/v1/admin/maintenance', TEST_ADMIN_KEY)).body).toMatchObject({
      enabled: false,
    })
    const refused = await call('PUT', '/v1/admin/maintenance', key, { enabled: true })
    expect(refused.status).toBe(403)
    const on = await call('PUT', '/v1/admin/maintenance', TEST_ADMIN_KEY, {
      enabled: true,
      message: 'Back at 14:00 UTC',
      retry_after_seconds: 900,
    })
    expect(on.status).toBe(200)
    expect(on.body).toMatchObject({ enabled: true, message: 'Back at 14:00 UTC', retry_after_seconds: 900 })
    expect((await call('GET', '/v1/admin/maintenance', TEST_ADMIN_KEY)).body).toMatchObject({ enabled: true })
  })

  it('answers priced and key routes 503 with the message and Retry-After, charging nothing (REST and MCP)', async () => {
    const before = await balance()
    const screen = await call('POST', '/v1/sanctions/screen', key, { name: 'Kim' })
    expect(screen.status).toBe(503)
    expect(screen.headers.get('retry-after')).toBe('900')
    expect(screen.body).toMatchObject({
      errorCode: 'maintenance',
      charged: false,
      detail: 'Back at 14:00 UTC',
    })
    const usage = await call('GET', '/v1/keys/usage', key)
    expect(usage.status).toBe(503)
    const tool = await service.mcp.call({ name: 'sanctions_screen', arguments: { name: 'Kim' } }, key)
    expect(tool.isError).toBe(true)
    expect(JSON.stringify(tool.content)).toContain('maintenance')
    expect(await balance()).toBe(before)
  })

  it('keeps /health and the public routes answering, saying maintenance is on', async () => {
    const health = await call('GET', '/health', null)
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({
      status: 'maintenance',
      maintenance: { enabled: true, message: 'Back at 14:00 UTC', retry_after_seconds: 900 },
    })
    const llms = await service.app.request('/llms.txt')
    expect(llms.status).toBe(200)
    expect(llms.headers.get('x-maintenance')).toBe('on')
  })

  it('shows the operator frozen: true in financial health while on (the switch, not a constant)', async () => {
    const health = await call('GET', '/v1/financial/health', TEST_ADMIN_KEY)
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ frozen: true })
  })

  it('serves and charges again once switched off', async () => {
    const off = await call('PUT', '/v1/admin/maintenance', TEST_ADMIN_KEY, { enabled: false })
    expect(off.body).toMatchObject({ enabled: false })
    const usage = await call('GET', '/v1/keys/usage', key)
    expect(usage.status).toBe(200)
    expect((await call('GET', '/health', null)).body.status).not.toBe('maintenance')
    expect((await call('GET', '/v1/financial/health', TEST_ADMIN_KEY)).body).toMatchObject({ frozen: false })
  })
})
