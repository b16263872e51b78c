import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../env.ts'
import { problemResponse } from '../problem.ts'

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/** The origin (scheme://host[:port]) of a URL, or undefined when it is not one. */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether a browser `Origin` may call `/mcp`: the configured origins (the public base URL's and
 * MCP_ALLOWED_ORIGINS) and loopback; anything else, including `null` and garbage, may not. Shared
 * by the guard and the CORS preflight of `/mcp` (middleware/cors.ts).
 */
export function mcpOriginCheck(allowedOrigins: readonly string[]): (origin: string) => boolean {
  const allowed = new Set(allowedOrigins.map(originOf).filter((origin) => origin !== undefined))
  return (origin) => {
    const parsed = originOf(origin)
    if (!parsed) return false
    return LOOPBACK_HOSTS.has(new URL(parsed).hostname) || allowed.has(parsed)
  }
}

/**
 * Guards the stateless Streamable HTTP endpoint (MCP transport spec):
 * - only POST carries messages: GET (no server-initiated stream) and DELETE (no session) get 405,
 *   so clients do not reconnect to a stream that closes at once;
 * - a request with an `Origin` header is refused with 403 unless the origin is allowed (the
 *   public base URL's, a loopback origin, or one listed in config), against DNS rebinding.
 *   Requests without Origin (non-browser agents) pass.
 */
export function mcpGuard(options: { allowedOrigins: readonly string[] }): MiddlewareHandler<AppEnv> {
  const isAllowed = mcpOriginCheck(options.allowedOrigins)
  return async (c, next) => {
    if (c.req.method !== 'POST') {
      c.header('Allow', 'POST')
      return problemResponse(c, 405, 'this MCP endpoint is stateless: send JSON-RPC messages with POST')
    }
    const origin = c.req.header('origin')
    if (origin !== undefined && !isAllowed(origin)) {
      return problemResponse(c, 403, `Origin ${origin} is not allowed to call this MCP endpoint`)
    }
    await next()
    return undefined
  }
}
