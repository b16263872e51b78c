import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineOperation } from '../core/operations/define.ts'
import type { Service } from '../server/compose.ts'
import { createTestService, listen, TEST_ADMIN_KEY } from '../test/support/service.ts'
import { HEALTH_CHECK_INTERVAL_MS } from './health-monitor.ts'

const VALID_ENTITY = { entity_name: 'Koninklijke Philips N.V.', country: 'NL', kvk_number: '17001910' }

describe('HTTP API (foundation)', () => {
  let service: Service
  let sandboxKey: string
  let freeKey: string

  const call = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers)
    let body = init.body
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json')
      body = JSON.stringify(init.json)
    }
    return service.app.request(path, { ...init, headers, body })
  }

  beforeAll(async () => {
    service = await createTestService('pglite')
    const sandbox = await call('/v1/keys/create', {
      method: 'POST',
      json: { email: 'dev@example.com', tier: 'sandbox' },
    })
    sandboxKey = ((await sandbox.json()) as { api_key: string }).api_key
    const free = await call('/v1/keys/create', {
      method: 'POST',
      json: { email: 'dev@example.com', tier: 'free' },
    })
    freeKey = ((await free.json()) as { api_key: string }).api_key
  })
  afterAll(async () => {
    await service?.close()
  })

  it('answers /health with status, version, database and uptime', async () => {
    const response = await call('/health', { headers: { 'x-api-key': 'svc_live_bogus' } })
    expect(response.status).toBe(200)
    // Test services read no sanctions lists: degraded (still 200), with the reason per list.
    const body = (await response.json()) as { sanctions_lists: { status: string; reason: string }[] }
    expect(body).toMatchObject({
      status: 'degraded',
      version: expect.any(String),
      database: { kind: 'pglite', reachable: true },
      uptime_s: expect.any(Number),
    })
    expect(body.sanctions_lists).toHaveLength(3)
    for (const list of body.sanctions_lists) {
      expect(list).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('no list source') })
    }
  })

  it('answers 503 on /health when the database does not answer', async () => {
    const broken = await createTestService('pglite')
    await broken.database.close()
    // /health answers from state checked in the background about once a second: the closed
    // database shows on the check after the close (well within two intervals and the ping timeout).
    const closedAt = performance.now()
    let response = await broken.app.request('/health')
    while (response.status === 200 && performance.now() - closedAt < 2 * HEALTH_CHECK_INTERVAL_MS + 2000) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      response = await broken.app.request('/health')
    }
    expect(response.status).toBe(503)
    expect(await response.json()).toMatchObject({ status: 'degraded', database: { reachable: false } })
  })

  it('creates sandbox and free keys once, and refuses paid tiers naming the upgrade route', async () => {
    expect(sandboxKey).toMatch(/^svc_sandbox_/)
    expect(freeKey).toMatch(/^svc_live_/)
    const response = await call('/v1/keys/create', {
      method: 'POST',
      json: { email: 'x@example.com', tier: 'pro' },
    })
    expect(response.status).toBe(422)
    const body = (await response.json()) as { detail: { field: string; message: string }[] }
    expect(body.detail).toEqual([
      { field: 'tier', message: expect.stringContaining('POST /v1/keys/upgrade/pro') },
    ])
  })

  it('shows balance, tier and calls on /v1/keys/usage, and 401 without a key', async () => {
    const response = await call('/v1/keys/usage', { headers: { 'x-api-key': freeKey } })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      tier: 'free',
      mode: 'live',
      balance_micros: 0,
      paid_calls: 0,
    })
    const anonymous = await call('/v1/keys/usage')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('content-type')).toBe('application/problem+json')
  })

  it('returns a marked, deterministic mock entity check to a sandbox key at no charge', async () => {
    const first = await call('/v1/entity/check', {
      method: 'POST',
      headers: { 'x-api-key': sandboxKey, 'X-Limitguard-Mode': 'live' },
      json: VALID_ENTITY,
    })
    expect(first.status).toBe(200)
    const body = (await first.json()) as Record<string, unknown>
    expect(body).toMatchObject({ mock: true, entity_name: VALID_ENTITY.entity_name, country: 'NL' })
    expect(body.trust_score).toBeGreaterThanOrEqual(0)
    const second = await call('/v1/entity/check', {
      method: 'POST',
      headers: { 'x-api-key': sandboxKey },
      json: VALID_ENTITY,
    })
    expect(await second.json()).toEqual(body)
  })

  it('gives 422 with one {field, message} per bad field, names as sent', async () => {
    const response = await call('/v1/entity/check', {
      method: 'POST',
      headers: { 'x-api-key': sandboxKey },
      json: { entity_name: 'X', country: 'nl', kvk_number: '1234 5678', surprise: true },
    })
    expect(response.status).toBe(422)
    const body = (await response.json()) as { type: string; detail: { field: string }[] }
    expect(body.type).toBe('about:blank')
    expect(body.detail.map((error) => error.field).sort()).toEqual([
      'country',
      'entity_name',
      'kvk_number',
      'surprise',
    ])
  })

  it('gives 400 for a missing body, malformed JSON and a non-JSON Content-Type', async () => {
    const headers = { 'x-api-key': sandboxKey, 'content-type': 'application/json' }
    const missing = await call('/v1/entity/check', { method: 'POST', headers })
    const malformed = await call('/v1/entity/check', { method: 'POST', headers, body: '{"entity_name":' })
    const wrongType = await call('/v1/entity/check', {
      method: 'POST',
      headers: { 'x-api-key': sandboxKey, 'content-type': 'text/plain' },
      body: JSON.stringify(VALID_ENTITY),
    })
    for (const [response, detail] of [
      [missing, 'request body is required'],
      [malformed, 'malformed JSON in request body'],
      [wrongType, 'Content-Type must be application/json'],
    ] as const) {
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ status: 400, detail })
    }
  })

  it('gives 413 for a body over the limit', async () => {
    const response = await call('/v1/entity/check', {
      method: 'POST',
      headers: { 'x-api-key': sandboxKey, 'content-type': 'application/json' },
      body: JSON.stringify({ entity_name: 'x'.repeat(300 * 1024), country: 'NL' }),
    })
    expect(response.status).toBe(413)
  })

  it('says Connection: close on a 413 and closes the socket after it (the rest of the body is not read)', async () => {
    const server = await listen(service)
    const { port } = new URL(server.baseUrl)
    /** Everything the server sends on one socket until it closes it (or 5 s pass). */
    const exchange = (bytes: string) =>
      new Promise<{ text: string; closedByServer: boolean }>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1')
        let text = ''
        const timer = setTimeout(() => {
          socket.destroy()
          resolve({ text, closedByServer: false })
        }, 5_000)
        socket.on('data', (chunk) => {
          text += chunk.toString('latin1')
        })
        socket.on('end', () => {
          clearTimeout(timer)
          resolve({ text, closedByServer: true })
        })
        socket.write(bytes)
      })
    const big = 'x'.repeat(300 * 1024)
    const head = 'POST /v1/entity/check HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n'
    try {
      for (const request of [
        // Refused on its Content-Length, before any byte of the body is read.
        `${head}Content-Length: ${big.length}\r\n\r\n${big}`,
        // Refused while streaming, once the limit is passed.
        `${head}Transfer-Encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
      ]) {
        const { text, closedByServer } = await exchange(
          `${request}GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n`,
        )
        expect(text).toMatch(/^HTTP\/1\.1 413 /)
        expect(text.toLowerCase()).toContain('\r\nconnection: close\r\n')
        expect(text.toLowerCase()).not.toContain('keep-alive')
        // The pipelined request after it is never answered on this socket: the server closed it.
        expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1)
        expect(closedByServer).toBe(true)
      }
      // Other refusals keep the connection: a 400 and the next request share one socket.
      const { text } = await exchange(
        `${head}Content-Length: 2\r\n\r\n{xGET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      )
      expect(text).toMatch(/^HTTP\/1\.1 400 /)
      expect(text).toContain('HTTP/1.1 200 OK')
    } finally {
      await server.close()
    }
  })

  it('answers a known path called with another method 405 with Allow, on every route, public ones too', async () => {
    const byPath = new Map<string, Set<string>>()
    for (const route of service.app.routes) {
      if (route.method === 'ALL') continue
      byPath.set(route.path, (byPath.get(route.path) ?? new Set()).add(route.method))
    }
    expect(byPath.size).toBeGreaterThan(40)
    /** Every method of every route whose pattern matches the path (`/v1/reports/entity` is also a report id). */
    const methodsAt = (path: string) =>
      new Set(
        [...byPath].flatMap(([pattern, methods]) =>
          new RegExp(`^${pattern.replace(/:[a-z_]+/g, '[^/]+')}$`).test(path) ? [...methods] : [],
        ),
      )
    for (const routePath of byPath.keys()) {
      const path = routePath.replace(/:[a-z_]+/g, 'x')
      const methods = methodsAt(path)
      const expected = [...methods].flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))
      // PUT is served on one route (the operator's maintenance switch): wrong everywhere else.
      for (const wrong of ['PUT', 'PATCH', 'GET', 'POST', 'DELETE'].filter((m) => !methods.has(m))) {
        // The operator key passes the operator routes' own check, which answers before any route.
        const response = await call(path, { method: wrong, headers: { 'x-api-key': TEST_ADMIN_KEY } })
        const label = `${wrong} ${path}`
        expect(response.status, label).toBe(405)
        expect(response.headers.get('content-type'), label).toBe('application/problem+json')
        expect(response.headers.get('allow')?.split(', ').sort(), label).toEqual(expected.sort())
        expect(await response.json(), label).toMatchObject({
          type: 'about:blank',
          title: 'Method Not Allowed',
          status: 405,
          detail: expect.stringContaining(`${wrong} is not allowed on ${path}`),
        })
      }
    }
  })

  it('keeps 404 for unknown paths and the operator check first below /v1/admin', async () => {
    expect((await call('/v1/sanctions', { method: 'POST' })).status).toBe(404)
    expect((await call('/health/', { method: 'POST' })).status).toBe(404)
    const customer = await call('/v1/admin/keys', { headers: { 'x-api-key': freeKey } })
    expect(customer.status).toBe(403)
    expect(customer.headers.get('allow')).toBeNull()
    const health = await call('/health', { method: 'POST' })
    expect(health.status).toBe(405)
    expect(health.headers.get('allow')).toBe('GET, HEAD')
  })

  it('gives 404 problem details for an unknown path', async () => {
    const response = await call('/v1/nothing-here')
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ type: 'about:blank', status: 404 })
  })

  it('refuses test keys with 401 and says why', async () => {
    const response = await call('/v1/entity/check', {
      method: 'POST',
      headers: { 'x-api-key': `svc_test_${'a'.repeat(43)}` },
      json: VALID_ENTITY,
    })
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ detail: 'test keys not accepted in production' })
  })

  it('refuses a real check to a live key whose balance does not cover it (x402 off)', async () => {
    const response = await call('/v1/entity/check', {
      method: 'POST',
      headers: { 'x-api-key': freeKey },
      json: VALID_ENTITY,
    })
    // 402, never 403 (spec: Errors): a problem document, since there is no x402 challenge to give.
    expect(response.status).toBe(402)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(await response.json()).toMatchObject({
      status: 402,
      errorCode: 'insufficient_balance',
      detail: expect.stringContaining('the key balance does not cover this call'),
    })
  })

  it('keeps KYB for pro keys and above (sandbox keys get the mock)', async () => {
    const kyb = { entity_id: 'c-1', registration_number: '17001910', country: 'NL' }
    const free = await call('/v1/kyb/check', { method: 'POST', headers: { 'x-api-key': freeKey }, json: kyb })
    expect(free.status).toBe(403)
    expect(await free.json()).toMatchObject({ detail: 'this operation needs the pro tier or higher' })
    const sandbox = await call('/v1/kyb/check', {
      method: 'POST',
      headers: { 'x-api-key': sandboxKey },
      json: kyb,
    })
    expect(sandbox.status).toBe(200)
    expect(await sandbox.json()).toMatchObject({ mock: true, register_checked: 'KVK' })
  })

  it('answers 403 to customers on every /v1/admin path and 401 without a key', async () => {
    const customer = await call('/v1/admin/anything', { headers: { 'x-api-key': freeKey } })
    expect(customer.status).toBe(403)
    expect(await customer.json()).toMatchObject({ detail: 'Insufficient role' })
    expect((await call('/v1/admin/keys', { method: 'POST', json: {} })).status).toBe(401)
  })

  it('lets the operator create a funded live key and credit it', async () => {
    const admin = { 'x-api-key': TEST_ADMIN_KEY }
    const created = await call('/v1/admin/keys', {
      method: 'POST',
      headers: admin,
      json: { email: 'buyer@example.com', tier: 'pro', balance_usd: '25.50' },
    })
    expect(created.status).toBe(201)
    const key = (await created.json()) as { api_key: string; key_id: string; balance_micros: number }
    expect(key.api_key).toMatch(/^svc_live_/)
    expect(key.balance_micros).toBe(25_500_000)
    const credited = await call(`/v1/admin/keys/${key.key_id}/credit`, {
      method: 'POST',
      headers: admin,
      json: { amount_usd: '0.000001' },
    })
    expect(await credited.json()).toMatchObject({ balance_micros: 25_500_001 })
    const usage = await call('/v1/keys/usage', { headers: { 'x-api-key': key.api_key } })
    expect(await usage.json()).toMatchObject({ tier: 'pro', balance_usdc: 25.500001 })
  })

  it('turns an unexpected error into a 500 with a request id and no stack', async () => {
    const boom = defineOperation({
      id: 'boom',
      http: { method: 'POST', path: '/v1/boom' },
      summary: 'fails',
      input: z.object({}).strict(),
      output: z.object({}),
      price: null,
      ports: [],
      access: { sandbox: 'refuse' },
      run: async () => {
        throw new Error('secret internals at /srv/app.ts:12')
      },
    })
    const { createApp } = await import('./app.ts')
    const app = createApp({
      runtime: service.runtime,
      operations: [boom],
      health: { version: 't', startedAt: new Date(), database: service.database },
    })
    const response = await app.request('/v1/boom', {
      method: 'POST',
      headers: { 'x-api-key': freeKey, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(500)
    const text = await response.text()
    expect(text).not.toContain('secret internals')
    expect(JSON.parse(text).detail).toBe(
      `unexpected error (request id ${response.headers.get('x-request-id')})`,
    )
  })

  it('serves the scoring methodology as a public Markdown page', async () => {
    const response = await call('/v1/methodology', { headers: { 'x-api-key': 'svc_live_bogus' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/markdown')
    expect(await response.text()).toContain('trust')
  })

  it('serves an OpenAPI 3.1 document generated from the registry', async () => {
    const response = await call('/openapi.json')
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> }
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/entity/check', '/v1/kyb/check']))
  })
})
