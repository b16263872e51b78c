import { isUtf8 } from 'node:buffer'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { ServiceError } from '../core/errors.ts'

const REPLACEMENT_CHARACTER = '\ufffd'

/**
 * Where bytes stop being UTF-8: the offset of the first byte of the first ill-formed sequence, or
 * undefined when they are well-formed. A U+FFFD written in the input (EF BF BD) is not mistaken
 * for a replaced sequence.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)
  let at = text.indexOf(REPLACEMENT_CHARACTER)
  while (at >= 0) {
    // Everything before the first replaced sequence decoded exactly, so its UTF-8 length is the offset.
    const offset = Buffer.byteLength(text.slice(0, at), 'utf8')
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset
    at = text.indexOf(REPLACEMENT_CHARACTER, at + 1)
  }
  return 0
}

/**
 * The text of a request body that must be UTF-8 (JSON, RFC 8259), or a 400 naming the first
 * offending byte. Decoding never replaces bytes with U+FFFD: a mangled name would otherwise be
 * checked, charged for and stored as something the caller never sent.
 */
export async function readUtf8Body(c: Context): Promise<string> {
  const bytes = new Uint8Array(await c.req.arrayBuffer())
  const offset = invalidUtf8Offset(bytes)
  if (offset !== undefined) throw new ServiceError('bad_request', invalidUtf8Message(bytes, offset))
  return new TextDecoder('utf-8').decode(bytes)
}

/** `request body is not valid UTF-8 (byte 0xFF at offset 17)`. */
export function invalidUtf8Message(bytes: Uint8Array, offset: number): string {
  const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0')
  return `request body is not valid UTF-8 (byte 0x${byte} at offset ${offset}); send JSON encoded as UTF-8`
}

/**
 * Reads a JSON request body (spec: 400 for missing body, malformed JSON, unsupported Content-Type;
 * also 400 for a body that is not UTF-8), before anything is charged.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const contentType = c.req.header('content-type') ?? ''
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    throw new ServiceError('bad_request', 'Content-Type must be application/json')
  }
  const text = await readUtf8Body(c)
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
  // A request made in process (app.request) has no socket: asked first, because getConnInfo
  // would throw, and building that error for every such request is most of its cost.
  const bindings = c.env as { incoming?: unknown; server?: { incoming?: unknown } } | undefined
  const viaSocket = bindings?.incoming !== undefined || bindings?.server?.incoming !== undefined
  const peer = viaSocket ? getConnInfo(c).remote.address : undefined
  if (trustProxyHops <= 0) return peer
  const forwarded = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  return forwarded[forwarded.length - trustProxyHops] ?? forwarded[0] ?? peer
}
