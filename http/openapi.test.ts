import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import SwaggerParser from '@apidevtools/swagger-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QUALITIES } from '../core/context.ts'
import { type AnyOperation, operations as registry } from '../core/operations/index.ts'
import type { Service } from '../server/compose.ts'
import { createTestService } from '../test/support/service.ts'

type Operation = {
  operationId: string
  parameters?: { name: string; in: string; schema?: { enum?: string[] } }[]
  security?: Record<string, string[]>[]
  responses: Record<string, { $ref?: string }>
}
type Document = {
  openapi: string
  paths: Record<string, Record<string, Operation>>
  components: {
    securitySchemes: Record<string, { type: string; in?: string; name?: string }>
    responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>
    headers: Record<string, { required?: boolean; description?: string }>
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** Every documented operation as `METHOD /path` with its operation. */
function documentedOperations(document: Document): Map<string, Operation> {
  const found = new Map<string, Operation>()
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.includes(method)) found.set(`${method.toUpperCase()} ${path}`, operation)
    }
  }
  return found
}

/**
 * The routes the router serves, as `METHOD /path` with `{name}` parameters. Wildcard paths are
 * middleware (request id, CORS, body limit, the operator guard); `ALL` on a concrete path is a
 * handler for any method (/mcp) or the middleware in front of it.
 */
function servedRoutes(service: Service): Set<string> {
  return new Set(
    service.app.routes
      .filter((route) => !route.path.includes('*'))
      .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`),
  )
}

const priceTiers = (operation: AnyOperation) =>
  operation.price
    ? QUALITIES.filter(
        (q) => operation.price?.x402[q] !== undefined || operation.price?.account[q] !== undefined,
      )
    : []

describe('OpenAPI document (GET /openapi.json)', () => {
  let service: Service
  let document: Document
  let operations: Map<string, Operation>

  beforeAll(async () => {
    service = await createTestService()
    const response = await service.app.request('/openapi.json')
    expect(response.status).toBe(200)
    document = (await response.json()) as Document
    operations = documentedOperations(document)
  })
  afterAll(async () => {
    await service.close()
  })

  it('passes `redocly lint` (recommended rules) with 0 errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'))
    try {
      const file = join(dir, 'openapi.json')
      await writeFile(file, JSON.stringify(document, null, 2))
      const { stdout } = await promisify(execFile)(
        join(process.cwd(), 'node_modules', '.bin', 'redocly'),
        ['lint', file, '--format=json'],
        {
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          maxBuffer: 16 * 1024 * 1024,
        },
      )
      const report = JSON.parse(stdout) as {
        totals: { errors: number; warnings: number }
        problems: { ruleId: string; severity: string; message: string }[]
      }
      const errors = report.problems.filter((problem) => problem.severity === 'error')
      expect(errors).toEqual([])
      expect(report.totals.errors).toBe(0)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('is a valid OpenAPI 3.1 document for swagger-parser', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy()
  })

  it('documents exactly the routes the router serves, so a route without documentation fails', () => {
    const served = servedRoutes(service)
    const anyMethodPaths = new Set(
      [...served].filter((route) => route.startsWith('ALL ')).map((r) => r.slice(4)),
    )
    const documented = [...operations.keys()]
    const undocumented = [...served].filter((route) =>
      route.startsWith('ALL ')
        ? !documented.some((op) => op.endsWith(` ${route.slice(4)}`))
        : !operations.has(route),
    )
    expect(undocumented).toEqual([])
    const notServed = documented.filter(
      (route) => !served.has(route) && !anyMethodPaths.has(route.slice(route.indexOf(' ') + 1)),
    )
    expect(notServed).toEqual([])
    expect(served.size).toBeGreaterThan(15)
  })

  it('covers the public, key, operator, facilitator and MCP routes and every registry operation', () => {
    for (const route of [
      'GET /health',
      'GET /openapi.json',
      'GET /v1/methodology',
      'GET /.well-known/x402.json',
      'POST /v1/keys/create',
      'POST /v1/keys/upgrade/{tier}',
      'POST /v1/admin/keys',
      'POST /v1/admin/keys/{key_id}/credit',
      'POST /x402/verify',
      'POST /x402/settle',
      'POST /mcp',
      'GET /.well-known/agent.json',
      'GET /.well-known/mcp.json',
      'GET /.well-known/security.txt',
      'GET /v1/self-verify',
      'GET /v1/legal/terms',
      'GET /v1/legal/privacy',
      'GET /llms.txt',
      'GET /llms-full.txt',
      'GET /docs',
    ]) {
      expect(operations.has(route), route).toBe(true)
    }
    for (const operation of registry) {
      expect(operations.get(`${operation.http.method} ${operation.http.path}`)?.operationId).toBe(
        operation.id,
      )
    }
  })

  it('declares X-API-Key as an apiKey security scheme and never as a header parameter', () => {
    expect(document.components.securitySchemes.apiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    )
    for (const [route, operation] of operations) {
      expect(operation.security, route).toBeDefined()
      const headers = (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name)
      expect(
        headers.map((name) => name.toLowerCase()),
        route,
      ).not.toContain('x-api-key')
    }
    expect(operations.get('GET /v1/keys/usage')?.security).toEqual([{ apiKey: [] }])
    expect(operations.get('POST /v1/admin/keys')?.security).toEqual([{ apiKey: [] }])
    expect(operations.get('GET /health')?.security).toEqual([])
    expect(operations.get('POST /v1/entity/check')?.security).toContainEqual({ apiKey: [] })
  })

  it('documents 402 with the challenge schema and the PAYMENT-REQUIRED header on every paid route, and only there', () => {
    const paid = registry.filter((operation) => operation.price !== null)
    const paidRoutes = new Set([
      ...paid.map((operation) => `${operation.http.method} ${operation.http.path}`),
      'POST /v1/keys/upgrade/{tier}',
    ])
    for (const [route, operation] of operations) {
      expect(operation.responses['402'] !== undefined, route).toBe(paidRoutes.has(route))
      if (paidRoutes.has(route))
        expect(operation.responses['402']?.$ref).toBe('#/components/responses/PaymentRequired')
    }
    const challenge = document.components.responses.PaymentRequired
    expect(challenge?.content?.['application/json']).toEqual({
      schema: { $ref: '#/components/schemas/PaymentRequired' },
    })
    // Without x402 a short balance is a 402 problem document with errorCode and top_up, no challenge.
    expect(JSON.stringify(challenge?.content?.['application/problem+json'])).toContain(
      '#/components/schemas/TopUp',
    )
    expect(challenge?.headers?.['PAYMENT-REQUIRED']).toEqual({ $ref: '#/components/headers/PaymentRequired' })
    expect(document.components.headers.PaymentRequired?.description).toContain(
      'On every 402 with a challenge',
    )
  })

  it('documents 413 on request bodies, 429 with the rate-limit headers and 503 with Retry-After', () => {
    for (const route of ['POST /v1/entity/check', 'POST /v1/keys/create', 'POST /x402/settle']) {
      expect(operations.get(route)?.responses['413']?.$ref, route).toBe(
        '#/components/responses/PayloadTooLarge',
      )
    }
    expect(operations.get('GET /v1/keys/usage')?.responses['413']).toBeUndefined()
    for (const operation of registry) {
      const responses = operations.get(`${operation.http.method} ${operation.http.path}`)?.responses ?? {}
      expect(responses['429']?.$ref).toBe('#/components/responses/TooManyRequests')
      expect(responses['503']?.$ref).toBe('#/components/responses/ServiceUnavailable')
    }
    expect(Object.keys(document.components.responses.TooManyRequests?.headers ?? {})).toEqual(
      expect.arrayContaining([
        'Retry-After',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
      ]),
    )
    expect(Object.keys(document.components.responses.ServiceUnavailable?.headers ?? {})).toContain(
      'Retry-After',
    )
  })

  it('documents 402, 422 and 429 on every priced route', () => {
    const priced = registry.filter((operation) => operation.price !== null)
    expect(priced.length).toBeGreaterThan(0)
    for (const operation of priced) {
      const route = `${operation.http.method} ${operation.http.path}`
      const responses = operations.get(route)?.responses ?? {}
      for (const status of ['402', '422', '429'])
        expect(responses[status], `${route} ${status}`).toBeDefined()
    }
  })

  it('documents no 401, 402 or 403 on public routes (no security requirement)', () => {
    const publicRoutes = [...operations].filter(([, operation]) => (operation.security ?? []).length === 0)
    expect(publicRoutes.length).toBeGreaterThan(10)
    for (const [route, operation] of publicRoutes) {
      for (const status of ['401', '402', '403'])
        expect(operation.responses[status], `${route} ${status}`).toBeUndefined()
    }
  })

  it('offers X-Response-Quality only on operations whose price has more than one quality tier', () => {
    let offered = 0
    for (const [route, operation] of operations) {
      const registered = registry.find((op) => `${op.http.method} ${op.http.path}` === route)
      const tiers = registered ? priceTiers(registered) : []
      const quality = (operation.parameters ?? []).find((p) => p.name === 'X-Response-Quality')
      if (tiers.length > 1) {
        offered++
        expect(quality?.schema?.enum, route).toEqual(tiers)
      } else {
        expect(quality, route).toBeUndefined()
      }
    }
    expect(offered).toBeGreaterThan(0)
    const screen = operations.get('POST /v1/sanctions/screen')
    expect(screen?.parameters?.some((p) => p.name === 'X-Response-Quality') ?? false).toBe(false)
  })
})
