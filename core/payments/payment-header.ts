import { z } from 'zod'
import type { PaymentErrorCode } from './error-codes.ts'

/** Headers larger than this are refused before decoding (a v2 payload is about 1.5 KB). */
export const MAX_PAYMENT_HEADER_LENGTH = 16_384

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/

// Protocol envelopes come from third-party clients that add fields (resource, extensions), so
// they are loose objects; the signed EVM authorization below is strict.
const AcceptedSchema = z.looseObject({
  scheme: z.string().min(1).describe('Payment scheme the client chose, e.g. exact.'),
  network: z.string().min(1).describe('CAIP-2 network the client chose.'),
  amount: z.string().min(1).describe('Amount of the chosen requirement, 6-decimal units.'),
  asset: z.string().min(1).describe('Token contract or mint of the chosen requirement.'),
  payTo: z.string().min(1).describe('Recipient of the chosen requirement.'),
  maxTimeoutSeconds: z.number().describe('maxTimeoutSeconds of the chosen requirement.'),
  extra: z.record(z.string(), z.unknown()).nullish().describe('Scheme extras (EIP-712 name/version).'),
})

const PayloadV2Schema = z.looseObject({
  x402Version: z.literal(2).describe('x402 protocol version.'),
  accepted: AcceptedSchema.describe('The requirement from the challenge the client paid against.'),
  payload: z.record(z.string(), z.unknown()).describe('Scheme-specific payload (signature, authorization).'),
})

// x402 v1 shape. x402-fetch copies the body's x402Version into it, so it may say 2 as well.
const PayloadV1Schema = z.looseObject({
  x402Version: z.union([z.literal(1), z.literal(2)]).describe('x402 protocol version.'),
  scheme: z.string().min(1).describe('Payment scheme, e.g. exact.'),
  network: z.string().min(1).describe('v1 network name (base-sepolia) or CAIP-2 id.'),
  payload: z.record(z.string(), z.unknown()).describe('Scheme-specific payload (signature, authorization).'),
})

/** A payment as sent, normalised across the v2 and v1 envelope shapes. Nothing in it is verified yet. */
export interface DecodedPayment {
  /** The x402Version the client declared. */
  x402Version: 1 | 2
  /** `v2`: has `accepted` (as @x402 clients send); `v1`: top-level scheme/network (x402-fetch). */
  shape: 'v2' | 'v1'
  scheme: string
  /** As sent: CAIP-2 (v2) or a v1 name. */
  network: string
  /** The v2 `accepted` requirement echoed by the client, when present. */
  accepted?: z.infer<typeof AcceptedSchema>
  /** Scheme payload: `{ signature, authorization }` for EVM exact, `{ transaction }` for Solana. */
  payload: Record<string, unknown>
}

export type DecodeResult =
  | { ok: true; payment: DecodedPayment }
  | {
      ok: false
      code: Extract<PaymentErrorCode, 'malformed_payload' | 'unsupported_version'>
      message: string
    }

const malformed = (message: string): DecodeResult => ({ ok: false, code: 'malformed_payload', message })

/**
 * Reads a payment object, e.g. MCP `_meta["x402/payment"]` or a decoded header. Accepts the v2
 * payload (`{ x402Version: 2, accepted, payload }`) and the v1 one (`{ x402Version, scheme,
 * network, payload }`) (spec: Authentication, both headers accepted).
 */
export function parsePaymentPayload(value: unknown): DecodeResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return malformed('payment payload is not a JSON object')
  }
  const version = (value as { x402Version?: unknown }).x402Version
  if (version !== 1 && version !== 2) {
    return { ok: false, code: 'unsupported_version', message: `unsupported x402Version ${String(version)}` }
  }
  if ('accepted' in value) {
    const v2 = PayloadV2Schema.safeParse(value)
    if (!v2.success) return malformed(`invalid x402 v2 payment payload: ${v2.error.issues[0]?.message ?? ''}`)
    return {
      ok: true,
      payment: {
        x402Version: 2,
        shape: 'v2',
        scheme: v2.data.accepted.scheme,
        network: v2.data.accepted.network,
        accepted: v2.data.accepted,
        payload: v2.data.payload,
      },
    }
  }
  const v1 = PayloadV1Schema.safeParse(value)
  if (!v1.success) return malformed(`invalid x402 payment payload: ${v1.error.issues[0]?.message ?? ''}`)
  return {
    ok: true,
    payment: {
      x402Version: v1.data.x402Version,
      shape: 'v1',
      scheme: v1.data.scheme,
      network: v1.data.network,
      payload: v1.data.payload,
    },
  }
}

/**
 * Decodes a `PAYMENT-SIGNATURE` or `X-PAYMENT` header value: base64 (or base64url) of UTF-8 JSON.
 * Every failure is the data `malformed_payload`, never an exception: the caller answers 402.
 */
export function decodePaymentHeader(header: string): DecodeResult {
  const value = header.trim()
  if (value.length === 0) return malformed('payment header is empty')
  if (value.length > MAX_PAYMENT_HEADER_LENGTH) return malformed('payment header is too large')
  const encoding = BASE64.test(value) ? 'base64' : BASE64URL.test(value) ? 'base64url' : undefined
  if (!encoding) return malformed('payment header is not base64')
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(value, encoding).toString('utf8'))
  } catch {
    return malformed('payment header is not base64-encoded JSON')
  }
  return parsePaymentPayload(json)
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/
const UINT = /^\d{1,78}$/

/** The signed EIP-3009 TransferWithAuthorization message as clients send it (decimal strings). */
export const EvmAuthorizationSchema = z
  .object({
    from: z.string().regex(HEX_ADDRESS).describe('Payer address.'),
    to: z.string().regex(HEX_ADDRESS).describe('Recipient address (must be the payTo).'),
    value: z.string().regex(UINT).describe('Amount in 6-decimal units.'),
    validAfter: z.string().regex(UINT).describe('Unix seconds after which the authorization is valid.'),
    validBefore: z.string().regex(UINT).describe('Unix seconds before which the authorization is valid.'),
    nonce: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .describe('Unique random 32-byte nonce.'),
  })
  .strict()

/** The EVM `exact` scheme payload (EIP-3009). */
export const ExactEvmPayloadSchema = z.looseObject({
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/)
    .describe('EIP-712 signature of the authorization.'),
  authorization: EvmAuthorizationSchema.describe('The signed TransferWithAuthorization message.'),
})

export type EvmAuthorizationWire = z.infer<typeof EvmAuthorizationSchema>
