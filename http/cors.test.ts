import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Service } from '../server/compose.ts'
import { ConfigSchema } from '../server/config.ts'
import { createTestService } from '../test/support/service.ts'
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './middleware/cors.ts'

const BROWSER = 'https://shop.example.com'
const MCP_BROWSER = 'https://agents.example.com'

const listOf = (value: string | null) => (value ?? '').split(',').map((name) => name.trim().toLowerCase())

function preflight(
  service: Service,
  path: string,
  origin: string,
  method = 'POST',
  headers = 'content-type',
) {
  return service.app.request(path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': headers,
    },
  })
}

const MCP_INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
})

describe('CORS with the default CORS_ALLOWED_ORIGINS (*)', () => {
  let service: Service

  beforeAll(async () => {
    service = await createTestService('pglite', {
      // x402 on, so an unpaid call gets the challenge (the facilitator is never reached).
      X402_PAY_TO: `0x${'11'.repeat(20)}`,
      X402_NETWORKS: 'eip155:84532',
      X402_FACILITATOR_URL: 'http://127.0.0.1:9',
      PUBLIC_BASE_URL: 'https://api.example.test',
      MCP_ALLOWED_ORIGINS: MCP_BROWSER,
    })
  })
  afterAll(async () => {
    await service?.close()
  })

  it('answers the preflight of a priced /v1 route with the key, payment, quality and MCP headers allowed', async () => {
    const response = await preflight(
      service,
      '/v1/entity/check',
      BROWSER,
      'POST',
      'content-type, x-api-key, payment-signature, x-payment, x-response-quality',
    )
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    expect(listOf(response.headers.get('access-control-allow-methods'))).toEqual(
      expect.arrayContaining(['get', 'post', 'delete']),
    )
    expect(listOf(response.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining([
        'x-api-key',
        'payment-signature',
        'x-payment',
        'x-response-quality',
        'content-type',
        'mcp-session-id',
        'mcp-protocol-version',
      ]),
    )
    expect(response.headers.get('access-control-max-age')).toBe('600')
  })

  it('answers preflights before the key checks: key, operator and public routes all get 204', async () => {
    for (const [path, method] of [
      ['/v1/keys/usage', 'GET'],
      ['/v1/admin/keys', 'POST'],
      ['/v1/keys/create', 'POST'],
      ['/health', 'GET'],
      ['/.well-known/x402.json', 'GET'],
      ['/x402/verify', 'POST'],
      ['/v1/reputation/history/abc', 'GET'],
    ] as const) {
      const response = await preflight(service, path, BROWSER, method, 'x-api-key')
      expect(response.status, path).toBe(204)
      expect(response.headers.get('access-control-allow-origin'), path).toBe('*')
    }
  })

  it('exposes the payment, rate-limit, Retry-After and request-id headers on answers', async () => {
    const response = await service.app.request('/health', { headers: { origin: BROWSER } })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const exposed = listOf(response.headers.get('access-control-expose-headers'))
    expect(exposed).toEqual(
      expect.arrayContaining([
        'payment-required',
        'payment-response',
        'x-payment-response',
        'x-payment-verified',
        'x-payment-amount',
        'x-payment-fallback',
        'x-payment-settlement',
        'x-charged-amount',
        'x-balance-remaining',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'retry-after',
        'x-request-id',
      ]),
    )
    expect(exposed).toHaveLength(CORS_EXPOSED_HEADERS.length)
  })

  it('lets a browser read the x402 challenge of a 402 (PAYMENT-REQUIRED exposed)', async () => {
    const response = await service.app.request('/v1/sanctions/screen', {
      method: 'POST',
      headers: { origin: BROWSER, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ACME Trading' }),
    })
    expect(response.status).toBe(402)
    expect(response.headers.get('payment-required')).toBeTruthy()
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(listOf(response.headers.get('access-control-expose-headers'))).toContain('payment-required')
  })

  it('keeps the CORS headers on problem answers (401, 404 and 413)', async () => {
    const unauthorized = await service.app.request('/v1/keys/usage', { headers: { origin: BROWSER } })
    const missing = await service.app.request('/v1/nothing-here', { headers: { origin: BROWSER } })
    const tooLarge = await service.app.request('/v1/keys/create', {
      method: 'POST',
      headers: { origin: BROWSER, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@b.example', tier: 'free', pad: 'x'.repeat(300 * 1024) }),
    })
    for (const [response, status] of [
      [unauthorized, 401],
      [missing, 404],
      [tooLarge, 413],
    ] as const) {
      expect(response.status).toBe(status)
      expect(response.headers.get('access-control-allow-origin'), String(status)).toBe('*')
      expect(listOf(response.headers.get('access-control-expose-headers'))).toContain('x-request-id')
    }
  })

  it('answers the /mcp preflight for the MCP allow-list only, whatever CORS_ALLOWED_ORIGINS says', async () => {
    for (const origin of [MCP_BROWSER, 'https://api.example.test', 'http://localhost:6274']) {
      const response = await preflight(service, '/mcp', origin, 'POST', 'content-type, mcp-protocol-version')
      expect(response.status, origin).toBe(204)
      expect(response.headers.get('access-control-allow-origin'), origin).toBe(origin)
      expect(listOf(response.headers.get('access-control-allow-headers'))).toEqual(
        expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version', 'x-api-key']),
      )
      expect(listOf(response.headers.get('vary'))).toContain('origin')
    }
    for (const origin of [BROWSER, 'http://evil.example.com', 'null']) {
      const response = await preflight(service, '/mcp', origin)
      expect(response.status, origin).toBe(403)
      expect(response.headers.get('access-control-allow-origin'), origin).toBeNull()
    }
  })

  it('serves a cross-origin MCP POST from an allowed origin with CORS headers, and still refuses others', async () => {
    const post = (origin: string) =>
      service.app.request('/mcp', {
        method: 'POST',
        headers: {
          origin,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: MCP_INITIALIZE,
      })
    const allowed = await post(MCP_BROWSER)
    expect(allowed.status).toBe(200)
    expect(allowed.headers.get('access-control-allow-origin')).toBe(MCP_BROWSER)
    expect(listOf(allowed.headers.get('access-control-expose-headers'))).toContain('mcp-session-id')
    const refused = await post(BROWSER)
    expect(refused.status).toBe(403)
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('lets GET and DELETE /mcp through the preflight so the browser sees their 405', async () => {
    const response = await preflight(service, '/mcp', MCP_BROWSER, 'GET')
    expect(listOf(response.headers.get('access-control-allow-methods'))).toEqual(
      expect.arrayContaining(['post', 'get', 'delete']),
    )
    const get = await service.app.request('/mcp', { headers: { origin: MCP_BROWSER } })
    expect(get.status).toBe(405)
    expect(get.headers.get('access-control-allow-origin')).toBe(MCP_BROWSER)
  })
})

describe('CORS with CORS_ALLOWED_ORIGINS set to a list', () => {
  let service: Service

  beforeAll(async () => {
    service = await createTestService('pglite', {
      CORS_ALLOWED_ORIGINS: `${BROWSER}, http://localhost:5173`,
    })
  })
  afterAll(async () => {
    await service?.close()
  })

  it('echoes a listed origin with Vary: Origin', async () => {
    for (const origin of [BROWSER, 'http://localhost:5173']) {
      const response = await preflight(service, '/v1/keys/usage', origin, 'GET', 'x-api-key')
      expect(response.status).toBe(204)
      expect(response.headers.get('access-control-allow-origin')).toBe(origin)
      expect(listOf(response.headers.get('vary'))).toContain('origin')
    }
    const usage = await service.app.request('/v1/keys/usage', { headers: { origin: BROWSER } })
    expect(usage.headers.get('access-control-allow-origin')).toBe(BROWSER)
    expect(listOf(usage.headers.get('vary'))).toContain('origin')
  })

  it('gives any other origin no Access-Control-Allow-Origin, so the browser blocks the answer', async () => {
    for (const origin of ['https://evil.example.com', `${BROWSER}.evil.example`, 'null']) {
      const response = await preflight(service, '/v1/entity/check', origin)
      expect(response.headers.get('access-control-allow-origin'), origin).toBeNull()
      const health = await service.app.request('/health', { headers: { origin } })
      expect(health.status).toBe(200)
      expect(health.headers.get('access-control-allow-origin'), origin).toBeNull()
    }
  })
})

describe('CORS_ALLOWED_ORIGINS', () => {
  const parse = (value?: string) =>
    ConfigSchema.safeParse(value === undefined ? {} : { CORS_ALLOWED_ORIGINS: value })

  it('defaults to * (also when empty) and accepts comma-separated origins', () => {
    expect(parse().data?.CORS_ALLOWED_ORIGINS).toBe('*')
    expect(parse('').data?.CORS_ALLOWED_ORIGINS).toBe('*')
    expect(parse('https://a.example.com, http://localhost:5173').success).toBe(true)
  })

  it('refuses values that are not origins, naming the variable', () => {
    for (const value of [
      'https://a.example.com/',
      'https://a.example.com/app',
      'ftp://a.example.com',
      'a.example.com',
    ]) {
      const parsed = parse(value)
      expect(parsed.success, value).toBe(false)
      expect(parsed.error?.issues[0]?.path).toEqual(['CORS_ALLOWED_ORIGINS'])
    }
  })
})

it('lists the allowed request headers a browser client needs', () => {
  expect(CORS_ALLOWED_HEADERS).toEqual(
    expect.arrayContaining([
      'X-API-Key',
      'PAYMENT-SIGNATURE',
      'X-PAYMENT',
      'X-Response-Quality',
      'Content-Type',
    ]),
  )
})
