import { randomUUID } from 'node:crypto'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { isServiceError, PaymentRequiredError, ServiceError } from '../core/errors.ts'
import {
  AdminCreateKeyInput,
  AdminCreditInput,
  type ApiKeyService,
  CreateKeyInput,
  keyUsageView,
} from '../core/keys/index.ts'
import { usd } from '../core/money.ts'
import type { AnyOperation } from '../core/operations/define.ts'
import {
  type InvocationRequest,
  invokeOperation,
  type OperationRuntime,
  statusOf,
} from '../core/operations/invoke.ts'
import { parseWith } from '../core/operations/parse.ts'
import { readMethodology } from '../core/scoring/index.ts'
import { buildOpenApiDocument } from './openapi.ts'
import { problemResponse } from './problem.ts'
import { paymentHeader, readJsonBody, requireKey } from './request.ts'

export interface HealthProbe {
  version: string
  startedAt: Date
  database: { kind: string; ping(): Promise<boolean> }
}

export interface AppOptions {
  runtime: OperationRuntime
  operations: readonly AnyOperation[]
  health: HealthProbe
  /** Handles /mcp (Streamable HTTP); given the request and the caller's X-API-Key. */
  mcp?: (request: Request, apiKey: string | undefined) => Promise<Response>
  /** Largest accepted request body (bytes); larger gets 413. */
  maxBodyBytes?: number
  /** Called with unexpected errors (never sent to the client). */
  onError?: (error: unknown, requestId: string) => void
  /** Route modules of other areas (payments, reputation ...), mounted after the key routes. */
  routes?: readonly RouteModule[]
}

export type AppEnv = { Variables: { requestId: string } }
type Env = AppEnv
/** Adds a group of routes to the app. */
export type RouteModule = (app: Hono<AppEnv>) => void

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024

/** The Hono app: routes generated from the operation registry plus key, admin and public routes. */
export function createApp(options: AppOptions): Hono<Env> {
  const { runtime, operations, health } = options
  const keys: ApiKeyService = runtime.keys
  const app = new Hono<Env>()
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES

  app.use('*', async (c, next) => {
    const requestId = randomUUID()
    c.set('requestId', requestId)
    await next()
    c.header('X-Request-Id', requestId)
  })

  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => problemResponse(c, 413, `request body is larger than ${maxBodyBytes} bytes`),
    }),
  )

  app.onError((error, c) => {
    const requestId = c.get('requestId') ?? randomUUID()
    if (error instanceof PaymentRequiredError) {
      c.header('PAYMENT-REQUIRED', error.header)
      return c.json(error.body as object, 402)
    }
    if (isServiceError(error)) {
      const status = statusOf(error)
      if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter))
      const detail = error.fields ?? error.message
      return problemResponse(c, status, detail, error.extra)
    }
    options.onError?.(error, requestId)
    return problemResponse(c, 500, `unexpected error (request id ${requestId})`)
  })

  app.notFound((c) => problemResponse(c, 404, `no route for ${c.req.method} ${c.req.path}`))

  // Public routes: never 401, 402 or 403 (spec: Errors).
  app.get('/health', async (c) => {
    const reachable = await health.database.ping()
    const body = {
      status: reachable ? 'ok' : 'degraded',
      version: health.version,
      database: { kind: health.database.kind, reachable },
      uptime_s: Math.round((Date.now() - health.startedAt.getTime()) / 1000),
    }
    return c.json(body, reachable ? 200 : 503)
  })

  app.get('/openapi.json', (c) => c.json(buildOpenApiDocument(operations, health.version)))

  app.get('/v1/methodology', async (c) =>
    c.body(await readMethodology(), 200, { 'Content-Type': 'text/markdown; charset=utf-8' }),
  )

  app.post('/v1/keys/create', async (c) => {
    const input = parseWith(CreateKeyInput, await readJsonBody(c))
    const created = await keys.create(input)
    return c.json(
      {
        api_key: created.apiKey,
        key_id: created.record.id,
        email: created.record.email,
        tier: created.record.tier,
        mode: created.record.mode,
        note: 'Store this key now: it is shown once and cannot be retrieved again.',
      },
      201,
    )
  })

  app.get('/v1/keys/usage', async (c) => {
    const caller = await requireKey(keys, c)
    if (caller.role === 'admin') throw new ServiceError('not_found', 'the operator key has no usage record')
    const record = await keys.get(caller.keyId)
    if (!record) throw new ServiceError('unauthorized', 'invalid API key')
    return c.json(keyUsageView(record))
  })

  // Operator routes: customers get 403 for every path below /v1/admin, known or not.
  app.use('/v1/admin/*', async (c, next) => {
    const caller = await requireKey(keys, c)
    if (caller.role !== 'admin') throw new ServiceError('forbidden', 'Insufficient role')
    await next()
  })

  app.post('/v1/admin/keys', async (c) => {
    const input = parseWith(AdminCreateKeyInput, await readJsonBody(c))
    const created = await keys.create({
      email: input.email,
      tier: input.tier,
      balance: usd(input.balance_usd),
    })
    return c.json({ api_key: created.apiKey, ...keyUsageView(created.record) }, 201)
  })

  app.post('/v1/admin/keys/:key_id/credit', async (c) => {
    const input = parseWith(AdminCreditInput, await readJsonBody(c))
    const record = await keys.credit(c.req.param('key_id'), usd(input.amount_usd))
    return c.json(keyUsageView(record))
  })

  for (const mount of options.routes ?? []) mount(app)

  for (const operation of operations) {
    const { method, path } = operation.http
    app.on(method, path, async (c) => {
      const input = method === 'GET' ? c.req.query() : await readJsonBody(c)
      const request: InvocationRequest = {
        apiKey: c.req.header('x-api-key'),
        input,
        quality: c.req.header('x-response-quality'),
        payment: paymentHeader(c),
        resourceUrl: c.req.url,
        requestId: c.get('requestId'),
      }
      const result = await invokeOperation(runtime, operation, request)
      for (const [name, value] of Object.entries(result.headers)) c.header(name, value)
      return c.json(result.output as object, 200)
    })
  }

  if (options.mcp) {
    const handleMcp = options.mcp
    app.all('/mcp', (c) => handleMcp(c.req.raw, c.req.header('x-api-key')))
  }

  return app
}
