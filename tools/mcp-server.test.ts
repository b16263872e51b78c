import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { operations } from '../core/operations/index.ts'
import { createTestService, listen } from '../core/testing/service.ts'
import type { Service } from '../server/compose.ts'
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
    expect((result.structuredContent as { detail: unknown }).detail).toEqual(problem.detail)
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? ''
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
    expect(JSON.stringify(result.content)).toContain(
      '401: an API key is required (X-API-Key); x402 payments are not configured',
    )
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
})
