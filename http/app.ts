import { randomUUID } from 'node:crypto'
import { Hono, type MiddlewareHandler } from 'hono'
import { PaymentRequiredError } from '../core/errors.ts'
import type { ApiKeyService } from '../core/keys/index.ts'
import type { MaintenanceSwitch } from '../core/maintenance/index.ts'
import type { AnyOperation, OperationRuntime } from '../core/operations/index.ts'
import { allowedMethodsOf } from './allowed-methods.ts'
import { collectSettles, type Settle, settleOnDelivery } from './delivery.ts'
import type { AppEnv } from './env.ts'
import { bodyLimit } from './middleware/body-limit.ts'
import { corsMiddleware } from './middleware/cors.ts'
import { mcpGuard, mcpOriginCheck } from './middleware/mcp-guard.ts'
import { paymentRequiredHeader } from './payment-headers.ts'
import type { PdfRenderer } from './pdf.ts'
import { type Problem, problemResponse, sendProblem, toProblem, withInstance } from './problem.ts'
import { clientAddress, invalidUtf8Message, invalidUtf8Offset } from './request.ts'
import { adminRoutes } from './routes/admin-routes.ts'
import { operationRoutes, routePath } from './routes/operation-routes.ts'
import { type HealthProbe, publicRoutes } from './routes/public-routes.ts'

export type { AppEnv } from './env.ts'
export type { HealthProbe } from './routes/public-routes.ts'

export interface AppOptions {
  runtime: OperationRuntime & { keys: ApiKeyService }
  /** Renders printable pages as PDF (`?format=pdf`); without it such a request is a 503. */
  pdf?: PdfRenderer
  operations: readonly AnyOperation[]
  health: HealthProbe
  /**
   * Handles /mcp (Streamable HTTP); given the request, the caller's X-API-Key and IP address, and
   * where to hand the settle of each tool result it puts in the response (settled with that
   * response's delivery).
   */
  mcp?: (
    request: Request,
    apiKey: string | undefined,
    clientAddress: string | undefined,
    onResultSent: (settle: Settle) => void,
  ) => Promise<Response>
  /** Proxies in front that append to X-Forwarded-For (TRUST_PROXY_HOPS); 0: the socket's peer is the client. */
  trustProxyHops?: number
  /** Browser origins allowed on /mcp (besides loopback); others get 403. */
  mcpAllowedOrigins?: readonly string[]
  /**
   * Browser origins allowed by CORS on every route but /mcp (CORS_ALLOWED_ORIGINS); `['*']`, the
   * default, allows any origin without credentials. /mcp follows mcpAllowedOrigins.
   */
  corsAllowedOrigins?: readonly string[]
  /** Largest accepted request body (bytes); larger gets 413. */
  maxBodyBytes?: number
  /** Called with unexpected errors (never sent to the client). */
  onError?: (error: unknown, requestId: string) => void
  /** Other route groups (payments ...), mounted at the root after the public and admin routes. */
  routes?: readonly Hono<AppEnv>[]
  /** The operator's maintenance switch (PUT /v1/admin/maintenance); absent: never in maintenance. */
  maintenance?: MaintenanceSwitch
}

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024

/**
 * Adds `instance` and `errorCode` to a problem answer of the route (http/problem.ts
 * `withInstance`); other answers pass unchanged.
 */
const problemInstanceMiddleware: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next()
  if (c.res.status < 400 || !c.res.headers.get('content-type')?.startsWith('application/problem+json')) return
  const { status, headers } = c.res
  const document = withInstance((await c.res.json()) as Problem, c.req.path)
  const rewritten = new Headers(headers)
  rewritten.delete('content-length')
  // Cleared first: Hono copies the headers of the answer it replaces (the old Content-Length too).
  c.res = undefined
  c.res = new Response(JSON.stringify(document), { status, headers: rewritten })
}

/**
 * A JSON-RPC POST to /mcp with its body checked to be UTF-8 (the SDK's transport would decode it
 * with U+FFFD replacements), or the JSON-RPC parse error the transport gives malformed JSON, with
 * HTTP 400, naming the first offending byte.
 */
async function utf8McpRequest(raw: Request): Promise<Request | Response> {
  const bytes = new Uint8Array(await raw.arrayBuffer())
  const offset = invalidUtf8Offset(bytes)
  if (offset === undefined) {
    return new Request(raw.url, { method: raw.method, headers: raw.headers, body: bytes, signal: raw.signal })
  }
  const error = { code: -32700, message: `Parse error: ${invalidUtf8Message(bytes, offset)}` }
  return Response.json({ jsonrpc: '2.0', error, id: null }, { status: 400 })
}

/**
 * The Hono app: request id, CORS and body limit, one error renderer, then the route groups as sub-apps:
 * public, operator (`/v1/admin`), the other groups, every registry operation, and `/mcp`.
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const { runtime, operations, health } = options
  const app = new Hono<AppEnv>()
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const mcpAllowedOrigins = options.mcpAllowedOrigins ?? []

  app.use('*', async (c, next) => {
    const requestId = randomUUID()
    c.set('requestId', requestId)
    // Set before the route runs, so the answer it builds with the context (c.json, c.body ...)
    // starts with it. A header added once the answer exists makes Hono copy it into a
    // stream-backed Response, which @hono/node-server writes through web streams instead of
    // straight to the socket: most of the adapter's own CPU on a small answer.
    c.header('X-Request-Id', requestId)
    await next()
    // A Response the route made itself (the MCP transport's, an export stream) did not start from
    // the context's headers: given it here.
    if (c.res.headers.get('x-request-id') !== requestId) c.header('X-Request-Id', requestId)
  })

  app.use(
    '*',
    corsMiddleware({
      allowedOrigins: options.corsAllowedOrigins ?? ['*'],
      isMcpOriginAllowed: mcpOriginCheck(mcpAllowedOrigins),
    }),
  )

  // Problem documents of the entity report routes carry instance and errorCode, whatever produced
  // them (body limit, validation, the operation, 404/405): registered before the body limit.
  for (const operation of operations) {
    if (operation.http.problemInstance) app.use(routePath(operation.http.path), problemInstanceMiddleware)
  }

  if (options.maintenance) {
    const maintenance = options.maintenance
    // Every answer says so while maintenance is on, public routes included (they keep answering).
    app.use('*', async (c, next) => {
      await next()
      const state = await maintenance.current().catch(() => undefined)
      if (state?.enabled) c.header('X-Maintenance', 'on')
    })
  }

  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      // The rest of the body is not read: the connection cannot be trusted for another request
      // (the node adapter stops draining after 500 ms or 64 MB and drops the socket), so the
      // answer says so, like nginx, and the socket is closed once it is sent.
      onError: (c) => {
        c.header('Connection', 'close')
        return problemResponse(c, 413, `request body is larger than ${maxBodyBytes} bytes`)
      },
    }),
  )

  app.onError((error, c) => {
    if (error instanceof PaymentRequiredError) {
      c.header('PAYMENT-REQUIRED', paymentRequiredHeader(error.paymentRequired))
      return c.json(error.body, 402)
    }
    return sendProblem(c, toProblem(error, c.get('requestId') ?? randomUUID(), options.onError))
  })

  // Known only once every route below is registered; built on the first unmatched request.
  let allowedMethods: ((path: string) => string[]) | undefined
  app.notFound((c) => {
    allowedMethods ??= allowedMethodsOf(app.routes)
    const allowed = allowedMethods(c.req.path)
    if (allowed.length === 0) return problemResponse(c, 404, `no route for ${c.req.method} ${c.req.path}`)
    c.header('Allow', allowed.join(', '))
    return problemResponse(
      c,
      405,
      `${c.req.method} is not allowed on ${c.req.path}; it answers ${allowed.join(', ')} (see the Allow header)`,
    )
  })

  app.route(
    '/',
    publicRoutes({
      keys: runtime.keys,
      operations,
      health,
      limits: runtime.limits,
      trustProxyHops: options.trustProxyHops,
    }),
  )
  app.route('/v1/admin', adminRoutes(runtime.keys, options.maintenance))
  for (const routes of options.routes ?? []) app.route('/', routes)
  app.route(
    '/',
    operationRoutes(runtime, operations, {
      trustProxyHops: options.trustProxyHops,
      ...(options.pdf ? { pdf: options.pdf } : {}),
    }),
  )

  if (options.mcp) {
    const handleMcp = options.mcp
    app.use('/mcp', mcpGuard({ allowedOrigins: mcpAllowedOrigins }))
    app.all('/mcp', async (c) => {
      const request = c.req.method === 'POST' ? await utf8McpRequest(c.req.raw) : c.req.raw
      if (request instanceof Response) return request
      const settles = collectSettles()
      let response: Response
      try {
        response = await handleMcp(
          request,
          c.req.header('x-api-key'),
          clientAddress(c, options.trustProxyHops),
          settles.add,
        )
      } catch (error) {
        await settles.settle(false)
        throw error
      }
      // Tool calls are charged once the response carrying their results was written whole.
      await settleOnDelivery(c, settles.settle)
      return response
    })
  }

  return app
}
