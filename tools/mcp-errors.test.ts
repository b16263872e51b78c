import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { x402Client } from '@x402/core/client'
import type { PaymentRequired } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { PRICES } from '../core/payments/pricing.ts'
import type { Service } from '../server/compose.ts'
import { createTestService, listen, TEST_ADMIN_KEY } from '../test/support/service.ts'
import { paymentRequiredOf, problemOf } from '../test/support/tool-errors.ts'
import { createMcpServer } from './mcp-server.ts'

const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C'
const BAD_ENTITY = { entity_name: 'A', country: 'NLD', iban: 'NL91ABNA0417164301' }

type ToolResult = Awaited<ReturnType<Client['callTool']>>
interface ProblemJson {
  type: string
  title: string
  status: number
  detail: unknown
  errorCode?: string
  retryAfter?: number
  charged?: boolean
}

function textOf(result: ToolResult): string {
  const [first] = result.content as { type: string; text?: string }[]
  expect(first?.type).toBe('text')
  return first?.text ?? ''
}

/** The problem document of an error result, as an agent reads it from `content[0].text`. */
function problemOfError(result: ToolResult): ProblemJson {
  expect(result.isError).toBe(true)
  expect(result.structuredContent).toBeUndefined()
  expect(textOf(result)).toBeTruthy()
  const problem = problemOf(result)
  expect(problem).not.toBeNull()
  return problem as unknown as ProblemJson
}

/**
 * Errors through the official SDK client over the real /mcp endpoint. Once a client has listed the
 * tools it validates every `structuredContent` against the tool's output schema and throws on a
 * mismatch, so an error result must carry its data elsewhere (content[0].text) to be seen at all.
 */
describe('MCP errors seen by the official SDK client', () => {
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let sandboxKey: string
  let freeKey: string
  let liveKey: string
  /** A service whose three list sources accept the connection and never answer: lists loading. */
  let loading: Service
  let loadingServer: { baseUrl: string; close(): Promise<void> }
  let loadingKey: string
  let silent: Server

  beforeAll(async () => {
    silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
    loading = await createTestService('pglite', {
      SANCTIONS_OFAC_SOURCE: `${silentUrl}/sdn.xml`,
      SANCTIONS_EU_SOURCE: `${silentUrl}/eu.xml`,
      SANCTIONS_UN_SOURCE: `${silentUrl}/un.xml`,
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    })
    loadingServer = await listen(loading)
    loadingKey = (
      await loading.runtime.keys.create({ email: 'wait@example.com', tier: 'pro', balance: 1_000_000n })
    ).apiKey
    service = await createTestService('pglite', {
      X402_PAY_TO: PAY_TO,
      X402_NETWORKS: 'eip155:84532',
      // Never reached: these tests only read challenges.
      X402_FACILITATOR_URL: 'http://127.0.0.1:9',
      PUBLIC_BASE_URL: 'https://api.example.test',
    })
    server = await listen(service)
    const createKey = async (path: string, body: object, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
      return ((await response.json()) as { api_key: string }).api_key
    }
    sandboxKey = await createKey('/v1/keys/create', { email: 'sandbox@example.com', tier: 'sandbox' })
    freeKey = await createKey('/v1/keys/create', { email: 'free@example.com', tier: 'free' })
    liveKey = await createKey(
      '/v1/admin/keys',
      { email: 'live@example.com', tier: 'pro', balance_usd: '5' },
      { 'x-api-key': TEST_ADMIN_KEY },
    )
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
    await loadingServer?.close()
    await loading?.close()
    silent?.closeAllConnections()
    await new Promise((resolve) => silent?.close(resolve))
  })

  async function connect(options: { apiKey?: string; listTools: boolean }): Promise<Client> {
    const client = new Client({ name: 'official-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: options.apiKey ? { 'X-API-Key': options.apiKey } : {} },
      }),
    )
    if (options.listTools) {
      const { tools } = await client.listTools()
      expect(tools.every((tool) => tool.outputSchema !== undefined)).toBe(true)
    }
    return client
  }

  async function rest(path: string, body: unknown, apiKey?: string) {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
      body: JSON.stringify(body),
    })
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as ProblemJson,
    }
  }

  for (const listTools of [true, false]) {
    const when = listTools ? 'after listTools' : 'without listTools'

    it(`returns the 422 field list of bad input as the REST problem document (${when})`, async () => {
      const client = await connect({ apiKey: sandboxKey, listTools })
      const result = await client.callTool({ name: 'entity_check', arguments: BAD_ENTITY })
      const problem = problemOfError(result)
      const viaRest = await rest('/v1/entity/check', BAD_ENTITY, sandboxKey)
      expect(viaRest.status).toBe(422)
      expect(problem).toEqual(viaRest.body)
      expect((problem.detail as { field: string }[]).map((item) => item.field).sort()).toEqual([
        'country',
        'entity_name',
        'iban',
      ])
      await client.close()
    })

    it(`returns the x402 PaymentRequired of a keyless priced call, as the REST challenge (${when})`, async () => {
      const client = await connect({ listTools })
      const result = await client.callTool({
        name: 'risk_score',
        arguments: { entity_name: 'ASML', country: 'NL' },
      })
      expect(result.structuredContent).toBeUndefined()
      const paymentRequired = paymentRequiredOf<PaymentRequired>(result)
      const viaRest = await rest('/v1/risk/score', { entity_name: 'ASML', country: 'NL' })
      expect(viaRest.status).toBe(402)
      const header = JSON.parse(
        Buffer.from(viaRest.headers.get('payment-required') ?? '', 'base64').toString(),
      )
      // The REST resource may name the request's host; MCP names the public base URL.
      const withoutResource = (accepts: Record<string, unknown>[]) =>
        accepts.map(({ resource: _resource, ...rest }) => rest)
      expect(paymentRequired?.x402Version).toBe(2)
      expect(withoutResource(paymentRequired?.accepts ?? [])).toEqual(withoutResource(header.accepts))
      expect(paymentRequired?.resource?.url).toBe('https://api.example.test/v1/risk/score')
      expect(paymentRequired?.accepts[0]).toMatchObject({
        network: 'eip155:84532',
        payTo: PAY_TO,
        amount: PRICES.risk_score.x402.fresh.toString(),
      })
      await client.close()
    })

    it(`returns 403 for a sandbox key on a refused tool and for a key below the tier (${when})`, async () => {
      const sandbox = await connect({ apiKey: sandboxKey, listTools })
      const refused = problemOfError(
        await sandbox.callTool({
          name: 'reputation_score',
          arguments: { entity_name: 'ASML', country: 'NL' },
        }),
      )
      expect(refused).toMatchObject({ status: 403, title: 'Forbidden' })
      expect(refused.detail).toContain('sandbox keys')
      await sandbox.close()
      const free = await connect({ apiKey: freeKey, listTools })
      const lowTier = problemOfError(
        await free.callTool({
          name: 'kyb_check',
          arguments: { entity_id: 'x', country: 'NL', registration_number: '17085815' },
        }),
      )
      expect(lowTier).toMatchObject({ status: 403, detail: 'this operation needs the pro tier or higher' })
      await free.close()
    })

    it(`returns 401 for a free tool called without a key (${when})`, async () => {
      const client = await connect({ listTools })
      const problem = problemOfError(await client.callTool({ name: 'keys_usage', arguments: {} }))
      expect(problem).toMatchObject({ status: 401, title: 'Unauthorized' })
      await client.close()
    })

    it(`returns 503 naming what the operator must set, without retryAfter, while no list is configured (${when})`, async () => {
      const client = await connect({ apiKey: liveKey, listTools })
      const problem = problemOfError(
        await client.callTool({ name: 'sanctions_screen', arguments: { name: 'Kim' } }),
      )
      expect(problem).toMatchObject({ status: 503, errorCode: 'service_not_configured', charged: false })
      expect(problem.retryAfter).toBeUndefined()
      expect(JSON.stringify(problem)).toContain('SANCTIONS_UN_SOURCE')
      await client.close()
    })

    it(`returns 503 with retryAfter while the sanctions lists are loading (${when})`, async () => {
      const client = new Client({ name: 'official-agent', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${loadingServer.baseUrl}/mcp`), {
          requestInit: { headers: { 'X-API-Key': loadingKey } },
        }),
      )
      if (listTools) await client.listTools()
      const problem = problemOfError(
        await client.callTool({ name: 'sanctions_screen', arguments: { name: 'Kim' } }),
      )
      expect(problem).toMatchObject({
        status: 503,
        errorCode: 'service_not_ready',
        retryAfter: 60,
        charged: false,
      })
      await client.close()
    })
  }

  it('hands a paying client a PaymentRequired the official x402 client can pay', async () => {
    const client = await connect({ listTools: true })
    const result = await client.callTool({
      name: 'entity_check',
      arguments: { entity_name: 'ASML', country: 'NL' },
    })
    const paymentRequired = paymentRequiredOf<PaymentRequired>(result)
    expect(paymentRequired).not.toBeNull()
    const payer = new x402Client().register(
      'eip155:84532',
      new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())),
    )
    const payload = await payer.createPaymentPayload(paymentRequired as PaymentRequired)
    expect(payload).toMatchObject({
      x402Version: 2,
      accepted: { network: 'eip155:84532', payTo: PAY_TO, amount: PRICES.entity_check.x402.fresh.toString() },
    })
    await client.close()
  })

  it('takes the quality tier from _meta.response_quality: the challenge asks the enhanced price', async () => {
    const client = await connect({ listTools: true })
    const result = await client.callTool({
      name: 'entity_check',
      arguments: { entity_name: 'ASML', country: 'NL' },
      _meta: { response_quality: 'enhanced' },
    })
    expect(paymentRequiredOf<PaymentRequired>(result)?.accepts[0]?.amount).toBe(
      PRICES.entity_check.x402.enhanced?.toString(),
    )
    const refused = problemOfError(
      await client.callTool({
        name: 'entity_check',
        arguments: { entity_name: 'ASML', country: 'NL' },
        _meta: { response_quality: 'best' },
      }),
    )
    expect(refused).toMatchObject({
      status: 422,
      detail: [{ field: '_meta.response_quality', message: 'must be one of cached, fresh, enhanced' }],
    })
    await client.close()
  })

  it.each([
    ['a string', 'ASML', 'string'],
    ['a number', 42, 'number'],
    ['an array', [{ entity_name: 'ASML' }], 'array'],
    ['null', null, 'null'],
  ])('answers arguments that are %s with a tool error naming the arguments', async (_what, value, type) => {
    const client = await connect({ apiKey: sandboxKey, listTools: true })
    const result = await client.callTool({ name: 'entity_check', arguments: value as never })
    expect(problemOfError(result)).toMatchObject({
      status: 422,
      detail: [{ field: '(arguments)', message: `expected object, received ${type}` }],
    })
    await client.close()
  })

  it('answers an unknown tool with a JSON-RPC invalid-params error (MCP: a protocol error)', async () => {
    const client = await connect({ apiKey: sandboxKey, listTools: true })
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: no_such_tool'),
    })
    await client.close()
  })

  it('answers non-object arguments over raw JSON-RPC with a result, not a JSON-RPC error', async () => {
    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'x-api-key': sandboxKey,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'risk_score', arguments: 'ASML' },
      }),
    })
    const message = (await response.json()) as { error?: unknown; result?: { isError?: boolean } }
    expect(message.error).toBeUndefined()
    expect(message.result?.isError).toBe(true)
  })

  /** One raw JSON-RPC request to /mcp and its JSON answer. */
  async function rawJsonRpc(message: object): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(message),
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  it.each([
    [
      'initialize with a number protocolVersion',
      'initialize',
      { protocolVersion: 5 },
      'params.protocolVersion',
    ],
    [
      'initialize without clientInfo',
      'initialize',
      { protocolVersion: '2025-06-18', capabilities: {} },
      'params.clientInfo',
    ],
    ['tools/list with a number cursor', 'tools/list', { cursor: 5 }, 'params.cursor'],
    [
      'initialize with capabilities a string',
      'initialize',
      { protocolVersion: '2025-06-18', capabilities: 'all', clientInfo: { name: 't', version: '1' } },
      'params.capabilities',
    ],
  ])(
    'answers %s with -32602 Invalid params naming the field, not -32603 with a zod dump',
    async (_what, method, params, field) => {
      const { status, body } = await rawJsonRpc({ jsonrpc: '2.0', id: 11, method, params })
      expect(status).toBe(200)
      expect(body).toMatchObject({
        jsonrpc: '2.0',
        id: 11,
        error: {
          code: -32602,
          message: expect.stringMatching(
            new RegExp(`^Invalid params for ${method}: .*${field.replace('.', '\\.')}: `),
          ),
          data: { fields: expect.arrayContaining([expect.objectContaining({ field })]) },
        },
      })
      expect(JSON.stringify(body)).not.toContain('"code":"invalid_type"')
      expect(body).not.toHaveProperty('result')
    },
  )

  it('still answers well-formed initialize, tools/list and ping', async () => {
    const init = await rawJsonRpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    })
    expect(init.body).toMatchObject({ id: 1, result: { serverInfo: { name: 'validation-service' } } })
    const list = await rawJsonRpc({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })
    expect((list.body.result as { tools: unknown[] }).tools.length).toBeGreaterThan(5)
    expect((await rawJsonRpc({ jsonrpc: '2.0', id: 3, method: 'ping' })).body).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {},
    })
  })

  it('answers malformed params over the in-memory transport (stdio path) the same way', async () => {
    const mcp = createMcpServer(service.mcp, { apiKey: sandboxKey })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const answers: unknown[] = []
    clientSide.onmessage = (message) => void answers.push(message)
    await mcp.connect(serverSide)
    await clientSide.start()
    await clientSide.send({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: { cursor: 5 } })
    await vi.waitFor(() => expect(answers).toHaveLength(1))
    expect(answers[0]).toMatchObject({ id: 9, error: { code: -32602 } })
    await mcp.close()
  })
})
