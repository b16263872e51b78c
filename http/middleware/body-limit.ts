import type { MiddlewareHandler } from 'hono'
import { bodyLimit as honoBodyLimit } from 'hono/body-limit'
import type { AppEnv } from '../env.ts'

/**
 * hono/body-limit, answering from the headers what they settle without asking for the body
 * stream. Its first step, `c.req.raw.body`, makes @hono/node-server build a whole undici Request
 * with a web stream over the socket for every request, GETs included; the JSON reader
 * (http/request.ts) then reads through that stream instead of straight from the socket. On a Node
 * socket the answer needs no stream in the two cases hono's middleware decides from the headers
 * alone: a GET, HEAD or TRACE, which @hono/node-server gives no body, and a Content-Length without
 * Transfer-Encoding, compared with the limit exactly as hono compares it. A body of unknown length
 * (chunked) and every request made in process go through hono's middleware unchanged.
 */
export function bodyLimit(options: Parameters<typeof honoBodyLimit>[0]): MiddlewareHandler<AppEnv> {
  const streamed = honoBodyLimit(options)
  const { maxSize, onError } = options
  return async (c, next) => {
    if (!c.env?.incoming) return streamed(c, next)
    const method = c.req.method
    if (method === 'GET' || method === 'HEAD' || method === 'TRACE') return next()
    const length = c.req.header('content-length')
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return streamed(c, next)
    if (Number.parseInt(length || '0', 10) <= maxSize) return next()
    return onError ? onError(c) : streamed(c, next)
  }
}
