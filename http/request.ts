import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { ServiceError } from '../core/errors.ts'

/** Reads a JSON request body (spec: 400 for missing body, malformed JSON, unsupported Content-Type). */
export async function readJsonBody(c: Context): Promise<unknown> {
  const contentType = c.req.header('content-type') ?? ''
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    throw new ServiceError('bad_request', 'Content-Type must be application/json')
  }
  const text = await c.req.text()
  if (text.trim() === '') throw new ServiceError('bad_request', 'request body is required')
  try {
    return JSON.parse(text)
  } catch {
    throw new ServiceError('bad_request', 'malformed JSON in request body')
  }
}

/** The x402 payment a request carries: `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1); both are accepted. */
export function paymentHeader(c: Context): string | undefined {
  return c.req.header('payment-signature') ?? c.req.header('x-payment')
}

/**
 * The client's IP address: the socket's peer, or with `trustProxyHops` > 0 (behind that many
 * proxies that append to X-Forwarded-For) the entry the outermost trusted proxy saw. Undefined when
 * the request did not come through a socket (in-process requests).
 */
export function clientAddress(c: Context, trustProxyHops = 0): string | undefined {
  let peer: string | undefined
  try {
    peer = getConnInfo(c).remote.address
  } catch {
    peer = undefined
  }
  if (trustProxyHops <= 0) return peer
  const forwarded = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  return forwarded[forwarded.length - trustProxyHops] ?? forwarded[0] ?? peer
}
