import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import type { AppEnv } from '../env.ts'
import { problemResponse } from '../problem.ts'

/** Request headers a browser client may send: the key, x402 payments, the quality tier, Idempotency-Key and MCP's. */
export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'X-API-Key',
  'PAYMENT-SIGNATURE',
  'X-PAYMENT',
  'X-Response-Quality',
  'Idempotency-Key',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
] as const

/**
 * Response headers a browser client may read: the x402 challenge and settlement, what a call
 * cost, a replayed answer, rate limits, Retry-After and the request id (http/payment-headers.ts,
 * http/problem.ts).
 */
export const CORS_EXPOSED_HEADERS = [
  'PAYMENT-REQUIRED',
  'PAYMENT-RESPONSE',
  'X-PAYMENT-RESPONSE',
  'X-Payment-Verified',
  'X-Payment-Amount',
  'X-Payment-Fallback',
  'X-Payment-Settlement',
  'X-Charged-Amount',
  'X-Balance-Remaining',
  'Idempotent-Replayed',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  'Mcp-Session-Id',
] as const

/** How long a browser may cache a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = 600

const shared = {
  allowHeaders: [...CORS_ALLOWED_HEADERS],
  exposeHeaders: [...CORS_EXPOSED_HEADERS],
  maxAge: PREFLIGHT_MAX_AGE,
  // Never credentials: the API authenticates with a header, not cookies, so `*` stays safe.
  credentials: false,
}

export interface CorsOptions {
  /** Origins allowed on every route but /mcp; `['*']` (the default) allows any, without credentials. */
  allowedOrigins: readonly string[]
  /** Whether an Origin may call /mcp (http/middleware/mcp-guard.ts); decides its preflight too. */
  isMcpOriginAllowed: (origin: string) => boolean
}

/**
 * The CORS headers of an answer that is not a preflight, as hono/cors gives them
 * (Access-Control-Allow-Origin when the origin is allowed, Access-Control-Expose-Headers, and
 * `Vary: Origin` unless any origin is allowed), set before the route runs. hono/cors sets them on
 * `c.res` before the route, which makes Hono copy every answer into a stream-backed Response that
 * @hono/node-server writes through web streams rather than straight to the socket; set with
 * `c.header` first, they are part of the answer the route builds. A Response the route made
 * itself, without the context's headers, gets them afterwards, as hono/cors would give them.
 */
function answerHeaders(
  origin: (origin: string) => string | null,
  varyOnOrigin: boolean,
): MiddlewareHandler<AppEnv> {
  const exposed = shared.exposeHeaders.join(',')
  return async (c, next) => {
    const allowOrigin = origin(c.req.header('origin') || '')
    if (allowOrigin) c.header('Access-Control-Allow-Origin', allowOrigin)
    c.header('Access-Control-Expose-Headers', exposed)
    if (varyOnOrigin) c.header('Vary', 'Origin', { append: true })
    await next()
    if (c.res.headers.get('access-control-expose-headers') === exposed) return
    if (allowOrigin) c.header('Access-Control-Allow-Origin', allowOrigin)
    c.header('Access-Control-Expose-Headers', exposed)
    if (varyOnOrigin) c.header('Vary', 'Origin', { append: true })
  }
}

/**
 * CORS for browser clients (hono/cors answers the preflights): every route except `/mcp` answers
 * the origins of CORS_ALLOWED_ORIGINS (any origin by default); `/mcp` answers only the origins its
 * guard lets through, and refuses the preflight of any other origin with 403, as the guard refuses
 * the POST. Preflights are answered here, before the body limit, the key checks and the MCP guard.
 */
export function corsMiddleware(options: CorsOptions): MiddlewareHandler<AppEnv> {
  const anyOrigin = options.allowedOrigins.includes('*')
  const allowed = new Set(options.allowedOrigins)
  const apiOrigin = anyOrigin ? () => '*' : (origin: string) => (allowed.has(origin) ? origin : null)
  const mcpOrigin = (origin: string) => (options.isMcpOriginAllowed(origin) ? origin : null)
  const api = cors({
    ...shared,
    origin: anyOrigin ? '*' : apiOrigin,
    allowMethods: ['GET', 'POST', 'DELETE'],
  })
  const mcp = cors({
    ...shared,
    origin: mcpOrigin,
    // GET and DELETE are allowed through the preflight so a browser client sees their 405.
    allowMethods: ['POST', 'GET', 'DELETE'],
  })
  const apiAnswer = answerHeaders(apiOrigin, !anyOrigin)
  const mcpAnswer = answerHeaders(mcpOrigin, true)
  return async (c, next) => {
    const preflight = c.req.method === 'OPTIONS'
    if (c.req.path !== '/mcp') return preflight ? api(c, next) : apiAnswer(c, next)
    const origin = c.req.header('origin')
    if (preflight && origin !== undefined && !options.isMcpOriginAllowed(origin)) {
      return problemResponse(c, 403, `Origin ${origin} is not allowed to call this MCP endpoint`)
    }
    return preflight ? mcp(c, next) : mcpAnswer(c, next)
  }
}
