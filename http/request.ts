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
