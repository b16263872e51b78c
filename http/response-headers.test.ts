import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Service } from '../server/compose.ts'
import { createTestService, listen } from '../test/support/service.ts'

const SHOP = 'https://shop.example.com'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const MCP_INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
})

/**
 * The headers every answer carries (a request id of its own; CORS for an allowed origin, with
 * `Vary: Origin` when not every origin is allowed), whichever way the route built it: with the
 * context (JSON, problem documents, the 413 of the body limit), as a Response of its own (the MCP
 * transport's, the audit export's stream), or as a preflight; over a socket and in process.
 */
describe('headers on every kind of answer', () => {
  let service: Service
  let server: Awaited<ReturnType<typeof listen>>
  let apiKey: string

  beforeAll(async () => {
    service = await createTestService('pglite', {
      CORS_ALLOWED_ORIGINS: SHOP,
      MCP_ALLOWED_ORIGINS: SHOP,
      MAX_BODY_BYTES: 1024,
    })
    server = await listen(service)
    ;({ apiKey } = await service.runtime.keys.create({ email: 'headers@example.com', tier: 'starter' }))
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
  })

  const json = { 'content-type': 'application/json', origin: SHOP }
  const answers: [string, string, () => RequestInit][] = [
    ['JSON answer', '/health', () => ({ headers: { origin: SHOP } })],
    ['key route', '/v1/keys/usage', () => ({ headers: { origin: SHOP, 'x-api-key': apiKey } })],
    ['404 problem', '/v1/nothing-here', () => ({ headers: { origin: SHOP } })],
    ['422 problem', '/v1/sanctions/screen', () => ({ method: 'POST', headers: json, body: '{}' })],
    [
      '413 of the body limit',
      '/v1/sanctions/screen',
      () => ({ method: 'POST', headers: json, body: JSON.stringify({ name: 'x'.repeat(2048) }) }),
    ],
    [
      'MCP transport Response',
      '/mcp',
      () => ({
        method: 'POST',
        headers: { ...json, accept: 'application/json, text/event-stream' },
        body: MCP_INITIALIZE,
      }),
    ],
    [
      'audit export stream',
      '/v1/audit/trail',
      () => ({ headers: { origin: SHOP, 'x-api-key': apiKey, accept: 'text/csv' } }),
    ],
    [
      'preflight',
      '/v1/sanctions/screen',
      () => ({ method: 'OPTIONS', headers: { origin: SHOP, 'access-control-request-method': 'POST' } }),
    ],
  ]

  for (const [via, request] of [
    ['over a socket', (path: string, init: RequestInit) => fetch(`${server.baseUrl}${path}`, init)],
    ['in process', (path: string, init: RequestInit) => service.app.request(path, init)],
  ] as const) {
    it(`gives each a request id of its own and the CORS headers, ${via}`, async () => {
      const ids = new Set<string>()
      for (const [name, path, init] of answers) {
        const response = await request(path, init())
        await response.arrayBuffer()
        const id = response.headers.get('x-request-id') ?? ''
        expect(id, name).toMatch(UUID)
        ids.add(id)
        expect(response.headers.get('access-control-allow-origin'), name).toBe(SHOP)
        if (name === 'preflight') {
          expect(response.headers.get('vary'), name).toBe('Origin, Access-Control-Request-Headers')
        } else {
          expect(response.headers.get('vary'), name).toBe('Origin')
          expect(response.headers.get('access-control-expose-headers'), name).toContain('X-Request-Id')
        }
      }
      expect(ids.size).toBe(answers.length)
    })
  }
})
