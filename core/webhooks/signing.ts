import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { canonicalJson } from '../canonical-json.ts'

/**
 * The signed envelope (spec: Events rules 2 and 4): JSON with sorted keys (RFC 8785 JCS via
 * `canonicalize`) carrying `event`, `event_id`, `created_at` and `data`; the signature is the
 * bare hex HMAC-SHA256 of the raw body bytes, keyed with the webhook secret.
 */

export interface Envelope {
  event: string
  event_id: string
  created_at: string
  data: unknown
}

/** The body bytes of a delivery, exactly as sent on every attempt. */
export function envelopeBody(envelope: Envelope): string {
  const body = canonicalJson(envelope)
  if (body === undefined) throw new Error('envelope cannot be serialised')
  return body
}

/** Hex HMAC-SHA256 of the raw body (header X-Service-Signature). */
export function signBody(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

/** Constant-time check of a received signature against the body, before parsing it. */
export function verifySignature(
  secret: string,
  body: string | Uint8Array,
  signature: string | null | undefined,
): boolean {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false
  const expected = Buffer.from(signBody(secret, body), 'hex')
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'))
}

/** A new webhook secret: `whsec_` + 32 random bytes in base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`
}
