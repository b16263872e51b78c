import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RETENTION_CATEGORIES } from '../../core/retention/index.ts'
import type { Service } from '../../server/compose.ts'
import { createTestService, TEST_ADMIN_KEY } from '../support/service.ts'

type Item = {
  category: string
  record_count: number
  retention_days: number
  scope: string
  next_cleanup: string
}

describe('GET /v1/data/inventory on a running service', () => {
  let service: Service
  let alice: string

  beforeAll(async () => {
    service = await createTestService('pglite', { RETENTION_DAYS: 'usage_logs=30' })
    alice = (await service.runtime.keys.create({ email: 'alice@example.com', tier: 'free' })).apiKey
  })
  afterAll(async () => {
    await service?.close()
  })

  const inventory = async (key: string) => {
    const response = await service.app.request('/v1/data/inventory', { headers: { 'X-API-Key': key } })
    expect(response.status).toBe(200)
    return (await response.json()) as Item[]
  }

  it('answers the register as a bare array: one item per category, configured retention, caller scope', async () => {
    expect((await service.app.request('/v1/data/inventory')).status).toBe(401)
    await inventory(alice) // a usage row of alice's own
    const items = await inventory(alice)
    expect(items.map((item) => item.category)).toEqual(
      RETENTION_CATEGORIES.map((category) => category.category),
    )
    const usage = items.find((item) => item.category === 'usage_logs')
    expect(usage).toMatchObject({ retention_days: 30, scope: 'caller' })
    expect(usage?.record_count).toBeGreaterThanOrEqual(1)
    expect(Date.parse(usage?.next_cleanup ?? '')).toBeGreaterThan(Date.now())
    expect(items.find((item) => item.category === 'settlements')?.retention_days).toBe(2557)
    const all = await inventory(TEST_ADMIN_KEY)
    expect(all.find((item) => item.category === 'usage_logs')?.scope).toBe('service')
  })

  it('is the MCP tool data_inventory, answering {categories}', async () => {
    const result = await service.mcp.call({ name: 'data_inventory', arguments: {} }, alice)
    expect(result.isError).toBeFalsy()
    expect((result.structuredContent as { categories: Item[] }).categories).toHaveLength(
      RETENTION_CATEGORIES.length,
    )
  })

  it('lists the same categories and retention in the privacy placeholder', async () => {
    const text = await (await service.app.request('/v1/legal/privacy')).text()
    expect(text).toContain('| usage_logs |')
    expect(text).toContain('| 30 days |')
    expect(text).toContain('| settlements |')
  })

  it('stops start-up naming RETENTION_DAYS when a value breaks the rules', async () => {
    await expect(createTestService('pglite', { RETENTION_DAYS: 'settlements=30' })).rejects.toThrow(
      /RETENTION_DAYS: settlements: the law requires at least 2557 days/,
    )
  })
})
