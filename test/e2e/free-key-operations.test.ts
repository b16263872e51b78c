import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Service } from '../../server/compose.ts'
import { createFakeSanctionsScreen } from '../support/company-fakes.ts'
import { createTestService, listen, TEST_ADMIN_KEY } from '../support/service.ts'
import { problemOf } from '../support/tool-errors.ts'

type Json = Record<string, unknown>

/** The free key routes are registry operations: the same answer over REST and over MCP. */
describe('free key operations over REST and MCP', () => {
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let liveKey: string
  let entityHash: string

  const rest = async (path: string, apiKey?: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    })
    return { status: response.status, body: (await response.json()) as Json }
  }

  async function mcp<T>(apiKey: string | undefined, use: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ name: 'free-ops-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
      requestInit: { headers: apiKey ? { 'X-API-Key': apiKey } : {} },
    })
    await client.connect(transport)
    try {
      return await use(client)
    } finally {
      await client.close()
    }
  }

  const callTool = (apiKey: string | undefined, name: string, args: Json = {}) =>
    mcp(apiKey, (client) => client.callTool({ name, arguments: args }))

  beforeAll(async () => {
    service = await createTestService('pglite')
    // The risk score needs its sanctions lists (an essential part): a stand-in holding all three.
    service.runtime.deps.sanctions = createFakeSanctionsScreen()
    server = await listen(service)
    const created = await rest('/v1/admin/keys', TEST_ADMIN_KEY, {
      method: 'POST',
      body: JSON.stringify({ email: 'ops@example.com', tier: 'pro', balance_usd: 10 }),
    })
    expect(created.status).toBe(201)
    liveKey = created.body.api_key as string
    const checked = await rest('/v1/risk/score', liveKey, {
      method: 'POST',
      body: JSON.stringify({ entity_name: 'Free Ops Test BV', country: 'NL' }),
    })
    expect(checked.status).toBe(200)
    entityHash = checked.body.entity_hash as string
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
  })

  it('answers GET /v1/reputation/history/{entity_hash} and the reputation_history tool alike', async () => {
    const viaRest = await rest(`/v1/reputation/history/${entityHash}?limit=10`, liveKey)
    expect(viaRest.status).toBe(200)
    expect(viaRest.body).toMatchObject({ entity_hash: entityHash, total: 1, limit: 10, offset: 0 })
    const viaMcp = await callTool(liveKey, 'reputation_history', { entity_hash: entityHash, limit: 10 })
    expect(viaMcp.isError).toBeFalsy()
    expect(viaMcp.structuredContent).toEqual(viaRest.body)
  })

  it('answers GET /v1/keys/usage and the keys_usage tool alike', async () => {
    const viaRest = await rest('/v1/keys/usage', liveKey)
    expect(viaRest.status).toBe(200)
    expect(viaRest.body).toMatchObject({ tier: 'pro', paid_calls: 1 })
    const viaMcp = await callTool(liveKey, 'keys_usage')
    expect(viaMcp.structuredContent).toEqual(viaRest.body)
  })

  it('answers GET /v1/financial/health and the financial_health tool alike', async () => {
    const viaRest = await rest('/v1/financial/health', liveKey)
    expect(viaRest.status).toBe(200)
    const viaMcp = await callTool(liveKey, 'financial_health')
    expect(viaMcp.structuredContent).toEqual(viaRest.body)
  })

  it('reports an unknown treasury balance as null, not 0, to the operator (no chain configured here)', async () => {
    const viaRest = await rest('/v1/financial/health', TEST_ADMIN_KEY)
    expect(viaRest.status).toBe(200)
    expect(viaRest.body).toMatchObject({ treasury_balance_usdc: null })
    expect(viaRest.body).not.toHaveProperty('treasury_balance_known')
    const viaMcp = await callTool(TEST_ADMIN_KEY, 'financial_health')
    expect(viaMcp.structuredContent).toEqual(viaRest.body)
    expect((await rest('/v1/financial/health', liveKey)).body).not.toHaveProperty('treasury_balance_usdc')
  })

  it('needs a key for the free operations, on both surfaces', async () => {
    expect((await rest('/v1/keys/usage')).status).toBe(401)
    expect((await rest(`/v1/reputation/history/${entityHash}`)).status).toBe(401)
    const viaMcp = await callTool(undefined, 'keys_usage')
    expect(viaMcp.isError).toBe(true)
    expect(problemOf(viaMcp)).toMatchObject({
      status: 401,
      detail: expect.stringContaining('an API key is required'),
    })
  })

  it('names a bad query parameter in the 422, on both surfaces', async () => {
    const viaRest = await rest(`/v1/reputation/history/${entityHash}?limit=0`, liveKey)
    expect(viaRest.status).toBe(422)
    expect(viaRest.body.detail).toEqual([
      { field: 'limit', message: expect.stringMatching(/>=1|at least|too small/i) },
    ])
    const viaMcp = await callTool(liveKey, 'reputation_history', { entity_hash: entityHash, limit: 0 })
    expect(problemOf(viaMcp)?.detail).toEqual(viaRest.body.detail)
  })

  it('says which type a field should have, on both surfaces', async () => {
    const bad = { entity_name: 123, country: 'NL' }
    const viaRest = await rest('/v1/risk/score', liveKey, { method: 'POST', body: JSON.stringify(bad) })
    expect(viaRest.status).toBe(422)
    expect(viaRest.body.detail).toEqual([
      { field: 'entity_name', message: 'expected string, received number' },
    ])
    const viaMcp = await callTool(liveKey, 'risk_score', bad)
    expect(problemOf(viaMcp)?.detail).toEqual(viaRest.body.detail)
    const admin = await rest('/v1/admin/keys', TEST_ADMIN_KEY, {
      method: 'POST',
      body: JSON.stringify({ email: 'ops@example.com', tier: 'pro', balance_usd: true }),
    })
    expect(admin.status).toBe(422)
    expect(JSON.stringify(admin.body.detail)).toContain('balance_usd')
  })

  it('keeps an unknown or foreign entity hash a 404 over MCP too', async () => {
    const viaMcp = await callTool(liveKey, 'reputation_history', { entity_hash: '0'.repeat(64) })
    expect(viaMcp.isError).toBe(true)
    expect(problemOf(viaMcp)).toMatchObject({ status: 404 })
  })
})
