import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RETENTION_CATEGORIES } from '../../core/retention/index.ts'
import type { Service } from '../../server/compose.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'
import { createTestService, TEST_ADMIN_KEY } from '../support/service.ts'

type ListFreshness = {
  list_key: string
  status: string
  publication_date?: string | null
  age_days?: number
  max_age_days: number
  reason?: string
}

type Item = {
  category: string
  record_count: number
  retention_days: number
  scope: string
  next_cleanup: string
  lists?: ListFreshness[]
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

  it('gives each sanctions list’s freshness on the list_versions item, the same as /health (no list loaded here)', async () => {
    const items = await inventory(alice)
    const health = (await (await service.app.request('/health')).json()) as {
      sanctions_lists: ListFreshness[]
    }
    const versions = items.find((item) => item.category === 'list_versions')
    expect(versions?.lists).toEqual(health.sanctions_lists)
    expect(versions?.lists?.map((list) => list.list_key)).toEqual(['ofac_sdn', 'eu', 'un'])
    for (const list of versions?.lists ?? []) expect(list).toMatchObject({ status: 'unavailable' })
    expect(items.filter((item) => item.lists !== undefined).map((item) => item.category)).toEqual([
      'list_versions',
    ])
  })

  it('shows a loaded list’s publication date, age and stale flag (UN list of 2026-02-27, 30-day threshold)', async () => {
    const withUn = await createTestService('pglite', {
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    } as never)
    try {
      await withUn.runtime.deps.sanctionsLists?.idle()
      const key = (await withUn.runtime.keys.create({ email: 'bob@example.com', tier: 'free' })).apiKey
      const response = await withUn.app.request('/v1/data/inventory', { headers: { 'X-API-Key': key } })
      const items = (await response.json()) as Item[]
      const health = (await (await withUn.app.request('/health')).json()) as {
        sanctions_lists: ListFreshness[]
      }
      const lists = items.find((item) => item.category === 'list_versions')?.lists
      expect(lists).toEqual(health.sanctions_lists)
      const un = lists?.find((list) => list.list_key === 'un')
      const expectedAge = Math.floor((Date.now() - Date.parse('2026-02-27T00:00:00Z')) / 86_400_000)
      expect(un).toMatchObject({
        status: 'stale',
        publication_date: '2026-02-27',
        max_age_days: 30,
        reason: expect.stringContaining('more than the 30-day threshold'),
      })
      expect(Math.abs((un?.age_days ?? -10) - expectedAge)).toBeLessThanOrEqual(1)
      const mcp = await withUn.mcp.call({ name: 'data_inventory', arguments: {} }, key)
      const mcpLists = (mcp.structuredContent as { categories: Item[] }).categories.find(
        (item) => item.category === 'list_versions',
      )?.lists
      expect(mcpLists).toEqual(lists)
    } finally {
      await withUn.close()
    }
  }, 120_000)

  it('stops start-up naming RETENTION_DAYS when a value breaks the rules', async () => {
    await expect(createTestService('pglite', { RETENTION_DAYS: 'settlements=30' })).rejects.toThrow(
      /RETENTION_DAYS: settlements: the law requires at least 2557 days/,
    )
  })
})
