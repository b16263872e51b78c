import { PAYMENT_ERROR_CODES } from '../core/payments/error-codes.ts'

/**
 * The reusable parts of the OpenAPI document: schemas, headers, responses and security schemes
 * shared by the registry operations and the service's other routes (http/route-docs/).
 */

const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
})
export const schemaRef = (name: string) => ref('schemas', name)
export const responseRef = (name: string) => ref('responses', name)
const headerRef = (name: string) => ref('headers', name)

const problemSchema = {
  type: 'object',
  description:
    'RFC 7807 problem details; the detail of a 422, and of a 400 for a missing required field, is an array of {field, message}',
  properties: {
    type: { type: 'string', const: 'about:blank' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: {
      oneOf: [
        { type: 'string' },
        {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, message: { type: 'string' } },
            required: ['field', 'message'],
          },
        },
      ],
    },
    instance: { type: 'string' },
  },
  required: ['type', 'title', 'status', 'detail'],
}

const paymentErrorCode = {
  type: 'string',
  enum: [...PAYMENT_ERROR_CODES],
  description: 'Why a payment was refused (core/payments/ERROR_CODES.md)',
}

/** One `accepts` item of a challenge: x402 v2 fields, the spec's fields and the x402 v1 fields. */
const acceptsItemSchema = {
  type: 'object',
  description: 'One way to pay: x402 v2 fields, the x402 v1 fields (maxAmountRequired, resource) and aliases',
  properties: {
    scheme: { type: 'string', const: 'exact' },
    network: { type: 'string', description: 'Network (CAIP-2 id, or the x402 v1 name in a v1 body)' },
    networkId: { type: 'string', description: 'CAIP-2 id' },
    amount: { type: 'string', pattern: '^[0-9]+$', description: 'USDC 6-decimal units' },
    asset: { type: 'string', description: 'USDC contract or mint' },
    payTo: { type: 'string', description: 'Recipient' },
    maxTimeoutSeconds: { type: 'integer' },
    extra: { type: 'object', additionalProperties: true },
    chainId: { oneOf: [{ type: 'integer' }, { type: 'string' }] },
    currency: { type: 'string', const: 'USDC' },
    contractAddress: { type: 'string' },
    recipient: { type: 'string' },
    description: { type: 'string' },
    maxAmountRequired: { type: 'string', pattern: '^[0-9]+$' },
    resource: { type: 'string' },
    mimeType: { type: 'string' },
  },
  required: ['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'],
  additionalProperties: true,
}

const paymentRequiredSchema = {
  type: 'object',
  description:
    'x402 challenge (not problem details). errorCode is present when a sent payment, or the key balance, was refused. The PAYMENT-REQUIRED header holds it in x402 v2 form (x402Version 2, CAIP-2 networks); the JSON body in x402 v1 form (x402Version 1, v1 network names in `network`, CAIP-2 id in `networkId`).',
  properties: {
    x402Version: {
      type: 'integer',
      enum: [1, 2],
      description: '1 in the 402 body, 2 in the PAYMENT-REQUIRED header.',
    },
    error: { type: 'string' },
    errorCode: paymentErrorCode,
    resource: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        description: { type: 'string' },
        mimeType: { type: 'string' },
      },
      required: ['url'],
    },
    accepts: { type: 'array', minItems: 1, items: schemaRef('PaymentRequirements') },
    top_up: schemaRef('TopUp'),
  },
  required: ['x402Version', 'error', 'accepts'],
  additionalProperties: true,
}

/** How a key whose balance does not cover a call is topped up (errorCode insufficient_balance). */
const topUpSchema = {
  type: 'object',
  description:
    'Present with errorCode insufficient_balance: what the call costs from the balance and how to top the key up',
  properties: {
    price_usd: { type: 'string', description: 'What this call costs from the key balance (USD)' },
    balance_url: { type: 'string', description: 'GET it with the key to read the balance' },
    upgrade_url: {
      type: 'string',
      description: 'x402 on: POST it with {tier} replaced to buy balance (paid with x402, credited in full)',
    },
    tiers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'x402 on: the top-ups this key can buy (its tier or higher) and their USD amounts',
    },
    how: { type: 'string', description: 'How to top up, in words' },
  },
  required: ['price_usd', 'balance_url', 'how'],
}

const verifyResponseSchema = {
  type: 'object',
  properties: {
    isValid: { type: 'boolean' },
    invalidReason: paymentErrorCode,
    invalidMessage: { type: 'string' },
    payer: { type: 'string' },
  },
  required: ['isValid'],
}

const settleResponseSchema = {
  type: 'object',
  description: 'x402 settlement response (also base64 JSON in PAYMENT-RESPONSE)',
  properties: {
    success: { type: 'boolean' },
    errorReason: paymentErrorCode,
    transaction: { type: 'string', description: 'Transaction hash or signature; empty on failure' },
    network: { type: 'string' },
    payer: { type: 'string' },
    amount: { type: 'string', pattern: '^[0-9]+$' },
  },
  required: ['success', 'transaction', 'network', 'payer'],
}

const facilitatorRequestSchema = {
  type: 'object',
  description: 'x402 facilitator request for a payment to this service',
  properties: {
    x402Version: { type: 'integer' },
    paymentPayload: {
      type: 'object',
      additionalProperties: true,
      description: 'The payment payload as the client built it',
    },
    paymentRequirements: {
      type: 'object',
      additionalProperties: true,
      description: 'The requirement the payment answers (one accepts item of a challenge)',
      properties: {
        scheme: { type: 'string', description: 'exact' },
        network: { type: 'string', description: 'CAIP-2 id or x402 v1 network name' },
        amount: { type: 'string', pattern: '^[0-9]{1,30}$', description: 'v2 amount, 6-decimal units' },
        maxAmountRequired: { type: 'string', pattern: '^[0-9]{1,30}$', description: 'v1 amount' },
        asset: { type: 'string' },
        payTo: { type: 'string', description: 'Must be this service' },
        resource: { type: 'string' },
        description: { type: 'string' },
        mimeType: { type: 'string' },
      },
      required: ['scheme', 'network', 'asset', 'payTo'],
    },
  },
  required: ['paymentPayload', 'paymentRequirements'],
}

const stringHeader = (description: string, schema: object = { type: 'string' }) => ({ description, schema })

const headers = {
  XRequestId: stringHeader('Id of this request (quoted in 500 details)'),
  PaymentRequired: stringHeader(
    'x402 v2 challenge: base64 of the PaymentRequired JSON (CAIP-2 networks), what @x402/fetch reads. On every 402 with a challenge (application/json); absent only from the problem-document 402 of a server that takes no x402 payments (insufficient_balance)',
  ),
  PaymentResponse: stringHeader('x402 settlement response, base64 JSON (SettleResponse)'),
  XPaymentResponse: stringHeader('The same as PAYMENT-RESPONSE, for x402 v1 clients'),
  XPaymentVerified: stringHeader('true when the call was paid with x402', { type: 'string', enum: ['true'] }),
  XPaymentAmount: stringHeader('Amount paid with x402, USDC 6-decimal units', {
    type: 'string',
    pattern: '^[0-9]+$',
  }),
  XPaymentFallback: stringHeader(
    'true when settlement fell back (on-chain instead of the facilitator) or is deferred',
    { type: 'string', enum: ['true'] },
  ),
  XPaymentSettlement: stringHeader('pending: verified and held, settled by the retry worker', {
    type: 'string',
    enum: ['pending'],
  }),
  XChargedAmount: stringHeader('Debited from the key balance, micro-USDC', {
    type: 'string',
    pattern: '^[0-9]+$',
  }),
  XBalanceRemaining: stringHeader('Key balance after the debit, micro-USDC', {
    type: 'string',
    pattern: '^[0-9]+$',
  }),
  XReceiptId: stringHeader('Id of the signed receipt of this paid answer (GET /v1/receipts/{receipt_id})', {
    type: 'string',
    pattern: '^rcpt_[0-9a-f]{32}$',
  }),
  XReceipt: stringHeader(
    'The signed receipt of this paid answer, base64url JSON: request and answer hashes (RFC 8785 JCS, SHA-256), operation, price and how it was paid (key, or x402 network and transaction), the sanctions list versions with their SHA-256 and the matcher version (screening operations), time, and a detached Ed25519 JWS by the key in /.well-known/jwks.json. Absent on replays and free calls. See validation-cli receipts verify',
    { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
  ),
  RetryAfter: stringHeader('Seconds to wait before retrying', { type: 'integer', minimum: 0 }),
  IdempotentReplayed: stringHeader(
    'true: the stored answer of an earlier call with the same Idempotency-Key, replayed unchanged and charged nothing (X-Charged-Amount 0)',
    { type: 'string', enum: ['true'] },
  ),
  XRateLimitLimit: stringHeader(
    "Calls allowed in the window reported: on a 429 the limit that refused the call; on a success the caller's tightest limit (per minute, rolling 24 hours or calendar month). Absent for the operator key.",
    { type: 'integer' },
  ),
  XRateLimitRemaining: stringHeader('Calls left in that window', { type: 'integer' }),
  XRateLimitReset: stringHeader('When that window frees a call again (Unix timestamp, seconds)', {
    type: 'integer',
  }),
}

/** Headers of a successful paid call: what it cost, by key debit or x402 settlement. */
export const paidSuccessHeaders = {
  'X-Request-Id': headerRef('XRequestId'),
  'PAYMENT-RESPONSE': headerRef('PaymentResponse'),
  'X-PAYMENT-RESPONSE': headerRef('XPaymentResponse'),
  'X-Payment-Verified': headerRef('XPaymentVerified'),
  'X-Payment-Amount': headerRef('XPaymentAmount'),
  'X-Payment-Fallback': headerRef('XPaymentFallback'),
  'X-Payment-Settlement': headerRef('XPaymentSettlement'),
  'X-Charged-Amount': headerRef('XChargedAmount'),
  'X-Balance-Remaining': headerRef('XBalanceRemaining'),
  'X-Receipt-Id': headerRef('XReceiptId'),
  'X-Receipt': headerRef('XReceipt'),
}

export const requestIdHeader = { 'X-Request-Id': headerRef('XRequestId') }

/** The extra success header of a priced POST (Idempotency-Key): present on a replayed answer. */
export const idempotentSuccessHeaders = { 'Idempotent-Replayed': headerRef('IdempotentReplayed') }

/** On every successful registry operation called with a key or a verified x402 payment (spec: Limits). */
export const rateLimitSuccessHeaders = {
  'X-RateLimit-Limit': headerRef('XRateLimitLimit'),
  'X-RateLimit-Remaining': headerRef('XRateLimitRemaining'),
  'X-RateLimit-Reset': headerRef('XRateLimitReset'),
}

const problem = (description: string, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { ...requestIdHeader, ...extraHeaders },
  content: { 'application/problem+json': { schema: schemaRef('Problem') } },
})

const responses = {
  BadRequest: problem(
    'A required field missing (detail lists {field, message}, the missing field "is required"), missing body, malformed JSON, a body that is not UTF-8 or an unsupported Content-Type',
  ),
  Unauthorized: problem('Missing, invalid, revoked or expired key; test key'),
  PaymentRequired: {
    description:
      'Payment required or refused: the x402 challenge, as base64 JSON (x402 v2) in the PAYMENT-REQUIRED header and as the JSON body. Retry with PAYMENT-SIGNATURE (or X-PAYMENT). A key whose balance does not cover the call gets errorCode insufficient_balance and top_up (how to top up). When the server takes no x402 payments there is no challenge: that 402 is a problem document (application/problem+json) with errorCode insufficient_balance and top_up.',
    headers: { ...requestIdHeader, 'PAYMENT-REQUIRED': headerRef('PaymentRequired') },
    content: {
      'application/json': { schema: schemaRef('PaymentRequired') },
      'application/problem+json': {
        schema: {
          allOf: [
            schemaRef('Problem'),
            {
              type: 'object',
              properties: {
                errorCode: { type: 'string', const: 'insufficient_balance' },
                top_up: schemaRef('TopUp'),
              },
              required: ['errorCode', 'top_up'],
            },
          ],
        },
      },
    },
  },
  Forbidden: problem('Tier, sandbox or role does not allow this operation'),
  NotFound: problem('Unknown id, or one that belongs to another key'),
  Conflict: problem(
    'A call with the same Idempotency-Key is still in progress (nothing charged); retry after Retry-After seconds to get its answer',
    { 'Retry-After': headerRef('RetryAfter') },
  ),
  PayloadTooLarge: problem('Request body larger than MAX_BODY_BYTES'),
  ValidationFailed: problem(
    'Invalid field values (every required field present); detail lists {field, message}',
  ),
  TooManyRequests: problem('Rate limit, daily limit or monthly cap exceeded (spec: Limits)', {
    'Retry-After': headerRef('RetryAfter'),
    'X-RateLimit-Limit': headerRef('XRateLimitLimit'),
    'X-RateLimit-Remaining': headerRef('XRateLimitRemaining'),
    'X-RateLimit-Reset': headerRef('XRateLimitReset'),
  }),
  InternalError: problem('Unexpected error; detail carries the request id'),
  ServiceUnavailable: problem(
    'The database or a source this call depends on is unavailable (nothing charged); retry after Retry-After seconds when given',
    { 'Retry-After': headerRef('RetryAfter') },
  ),
}

export type ResponseName = keyof typeof responses

export const securitySchemes = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'API key (svc_live_… or svc_sandbox_…; the operator key on /v1/admin). Priced calls are debited from its prepaid balance.',
  },
  x402Payment: {
    type: 'apiKey',
    in: 'header',
    name: 'PAYMENT-SIGNATURE',
    description: 'x402 v2 payment: base64 JSON PaymentPayload answering a 402 challenge',
  },
  x402PaymentV1: {
    type: 'apiKey',
    in: 'header',
    name: 'X-PAYMENT',
    description: 'x402 v1 payment header (same payload); accepted like PAYMENT-SIGNATURE',
  },
}

export const components = {
  schemas: {
    Problem: problemSchema,
    PaymentRequired: paymentRequiredSchema,
    PaymentRequirements: acceptsItemSchema,
    TopUp: topUpSchema,
    FacilitatorRequest: facilitatorRequestSchema,
    VerifyResponse: verifyResponseSchema,
    SettleResponse: settleResponseSchema,
  },
  headers,
  responses,
  securitySchemes,
}

/** The error responses of an operation, by status, as references to the shared responses. */
export function errorResponses(statuses: readonly number[]): Record<string, unknown> {
  const byStatus: Record<number, ResponseName> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    402: 'PaymentRequired',
    403: 'Forbidden',
    404: 'NotFound',
    409: 'Conflict',
    413: 'PayloadTooLarge',
    422: 'ValidationFailed',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
  }
  return Object.fromEntries(
    statuses.map((status) => {
      const name = byStatus[status]
      if (!name) throw new Error(`no shared response for status ${status}`)
      return [String(status), responseRef(name)]
    }),
  )
}
