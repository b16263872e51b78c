import type { Context } from 'hono'
import type { Caller } from '../core/context.ts'
import { ServiceError } from '../core/errors.ts'
import type { ApiKeyService } from '../core/keys/index.ts'

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

/** The calling key, or 401 when there is none (routes that always need a key). */
export async function requireKey(keys: ApiKeyService, c: Context): Promise<Extract<Caller, { kind: 'key' }>> {
  const caller = await keys.authenticate(c.req.header('x-api-key'))
  if (caller.kind !== 'key') throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
  return caller
}
