import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { operations } from '../core/operations/index.ts'
import type { Service } from '../server/compose.ts'
import { createTestService, listen } from '../test/support/service.ts'
import { problemOf } from '../test/support/tool-errors.ts'
import { createMcpServer } from './mcp-server.ts'

const ENTITY = { entity_name: 'ASML Holding N.V.', country: 'NL', kvk_number: '17085815' }
const BAD_ENTITY = { entity_name: 'A', country: 'NLD', iban: 'NL91ABNA0417164301' }

describe('MCP server', () => {
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let sandboxKey: string

  beforeAll(async () => {
    service = await createTestService('pglite')
    server = await listen(service)
    const created = await fetch(`${server.baseUrl}/v1/keys/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'agent@example.com', tier: 'sandbox' }),
    })
    sandboxKey = ((await created.json()) as { api_key: string }).api_key
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
  })

  async function httpClient(apiKey?: string): Promise<Client> {
    const client = new Client({ name: 'test-agent', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
      requestInit: { headers: apiKey ? { 'X-API-Key': apiKey } : {} },
    })
    await client.connect(transport)
    return client
  }

  it('lists one tool per operation, each with the route input schema', async () => {
    const client = await httpClient(sandboxKey)
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(operations.map((operation) => operation.id).sort())
    for (const operation of operations) {
      const tool = tools.find((candidate) => candidate.name === operation.id)
      const { $schema: _ignored, ...expected } = z.toJSONSchema(operation.input, {
        io: 'input',
        unrepresentable: 'any',
      }) as Record<string, unknown>
      expect(tool?.inputSchema).toEqual({ ...expected, type: 'object' })
    }
    await client.close()
  })

  it('returns the sandbox mock over Streamable HTTP, identical to REST', async () => {
    const client = await httpClient(sandboxKey)
    const result = await client.callTool({ name: 'entity_check', arguments: ENTITY })
    expect(result.isError).toBeFalsy()
    const rest = await fetch(`${server.baseUrl}/v1/entity/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sandboxKey },
      body: JSON.stringify(ENTITY),
    })
    expect(result.structuredContent).toEqual(await rest.json())
    expect(result.structuredContent).toMatchObject({ mock: true })
    await client.close()
  })

  it('gives the same field errors as the REST 422 for the same bad input', async () => {
    const client = await httpClient(sandboxKey)
    const result = await client.callTool({ name: 'entity_check', arguments: BAD_ENTITY })
    expect(result.isError).toBe(true)
    const rest = await fetch(`${server.baseUrl}/v1/entity/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sandboxKey },
      body: JSON.stringify(BAD_ENTITY),
    })
    expect(rest.status).toBe(422)
    const problem = (await rest.json()) as { detail: { field: string; message: string }[] }
    expect(result.structuredContent).toBeUndefined()
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? ''
    expect((JSON.parse(text) as { detail: unknown }).detail).toEqual(problem.detail)
    for (const field of ['entity_name', 'country', 'iban']) expect(text).toContain(field)
    await client.close()
  })

  it('answers a keyless paid tool call with an error saying a key is needed (x402 off)', async () => {
    const client = await httpClient()
    const result = await client.callTool({
      name: 'risk_score',
      arguments: { entity_name: 'ASML', country: 'NL' },
    })
    expect(result.isError).toBe(true)
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? ''
    expect(JSON.parse(text)).toMatchObject({
      status: 401,
      detail: 'an API key is required (X-API-Key); x402 payments are not configured',
    })
    await client.close()
  })

  it('describes every tool for an agent: title, hints, price and quality tiers, no HTTP headers', async () => {
    const client = await httpClient(sandboxKey)
    const { tools } = await client.listTools()
    for (const tool of tools) {
      const operation = operations.find((candidate) => candidate.id === tool.name)
      expect(tool.annotations).toEqual({
        title: expect.any(String),
        readOnlyHint: expect.any(Boolean),
        destructiveHint: operation?.destructive === true,
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      })
      expect(tool.title).toBe(tool.annotations?.title)
      expect(tool.description).not.toMatch(/X-Response-Quality|header/i)
      if (operation?.price) {
        expect(tool.description).toMatch(/Price in USD per (call|unit): paid per call with x402 /)
        expect(tool._meta?.pricing).toMatchObject({ currency: 'USD', x402: { fresh: expect.any(String) } })
        expect(tool.annotations?.readOnlyHint).toBe(false)
      } else {
        expect(tool.description).toContain('Free; needs an API key.')
        expect(tool._meta?.pricing).toEqual({ currency: 'USD', free: true })
      }
    }
    const entity = tools.find((tool) => tool.name === 'entity_check')
    expect(entity?.annotations).toMatchObject({
      title: 'Entity check',
      openWorldHint: true,
      idempotentHint: false,
    })
    expect(entity?._meta).toEqual({
      pricing: {
        currency: 'USD',
        per: 'call',
        x402: { cached: '0.11', fresh: '0.20', enhanced: '0.29' },
        account: { cached: '0.11', fresh: '0.58', enhanced: '1.05' },
      },
      response_quality: { values: ['cached', 'fresh', 'enhanced'], default: 'fresh' },
    })
    expect(entity?.description).toContain(
      'Quality tier: _meta["response_quality"] in the tools/call request, one of cached, fresh, enhanced (default fresh).',
    )
    const screen = tools.find((tool) => tool.name === 'sanctions_screen')
    expect(screen?._meta).not.toHaveProperty('response_quality')
    expect(screen?.description).toContain('paid per call with x402 0.005; from an API key balance 0.11')
    const kyb = tools.find((tool) => tool.name === 'kyb_check')
    expect(kyb?.description).toContain('API keys need the pro tier or higher')
    expect(kyb?.title).toBe('KYB check')
    const usage = tools.find((tool) => tool.name === 'keys_usage')
    expect(usage?.annotations).toMatchObject({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    })
    await client.close()
  })

  it('works over the in-memory transport with a key given to the server', async () => {
    const mcp = createMcpServer(service.mcp, { apiKey: sandboxKey })
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    await mcp.connect(serverTransport)
    const client = new Client({ name: 'in-memory', version: '1.0.0' })
    await client.connect(clientTransport)
    const result = await client.callTool({
      name: 'risk_score',
      arguments: { entity_name: 'ASML', country: 'NL' },
    })
    expect(result.structuredContent).toMatchObject({ mock: true, entity_name: 'ASML', country: 'NL' })
    await client.close()
  })

  it('refuses a missing required argument with the REST 400 and its field list', async () => {
    const client = await httpClient(sandboxKey)
    const result = await client.callTool({ name: 'risk_score', arguments: { country: 'nl' } })
    const rest = await fetch(`${server.baseUrl}/v1/risk/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sandboxKey },
      body: JSON.stringify({ country: 'nl' }),
    })
    expect(rest.status).toBe(400)
    const expected = {
      status: 400,
      title: 'Bad Request',
      detail: [
        { field: 'entity_name', message: 'is required' },
        { field: 'country', message: 'must be uppercase ISO 3166-1 alpha-2 (NL)' },
      ],
    }
    expect(await rest.json()).toMatchObject(expected)
    expect(problemOf(result)).toMatchObject(expected)
    await client.close()
  })

  it('refuses a path argument that is not a well-formed string with the REST 422, never a 500', async () => {
    const customer = await service.runtime.keys.create({ email: 'ids@example.com', tier: 'pro' })
    const withPath = operations.filter((operation) => operation.http.path.includes('{'))
    expect(withPath.length).toBeGreaterThan(3)
    const hostile: unknown[] = ['\ud800', 'a\udfffb', 42, true, null, [], ['x'], {}, { toString: 1 }]
    for (const operation of withPath) {
      const [, name] = /\{([a-z_][a-z0-9_]*)\}/.exec(operation.http.path) ?? []
      for (const value of hostile) {
        const result = await service.mcp.call(
          { name: operation.id, arguments: { [name!]: value } },
          customer.apiKey,
        )
        const label = `${operation.id} ${JSON.stringify(value)}`
        expect(result.isError, label).toBe(true)
        expect(problemOf(result), label).toMatchObject({
          status: 422,
          detail: expect.arrayContaining([expect.objectContaining({ field: name })]),
        })
      }
    }
  })
})
