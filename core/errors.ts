/**
 * The small family of infrastructure failures (CONVENTIONS 4). Expected outcomes such as
 * "sanctioned" or "source unavailable" are values in results, never errors.
 * Each adapter (HTTP, MCP) maps `code` to its own form.
 */
export type ServiceErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'validation_failed'
  | 'rate_limited'
  | 'unavailable'
  | 'internal'

/** One field-level validation failure; `field` is the request key as sent (dotted for nested keys). */
export interface FieldError {
  field: string
  message: string
}

export interface ServiceErrorOptions {
  cause?: unknown
  /** Field errors of a validation failure (422). */
  fields?: FieldError[]
  /** Extra members for the problem document (e.g. errorCode). */
  extra?: Record<string, unknown>
  /** Seconds until a retry may succeed (429, 503). */
  retryAfter?: number
}

export class ServiceError extends Error {
  readonly code: ServiceErrorCode
  readonly fields?: FieldError[]
  readonly extra?: Record<string, unknown>
  readonly retryAfter?: number

  constructor(code: ServiceErrorCode, message: string, options: ServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ServiceError'
    this.code = code
    this.fields = options.fields
    this.extra = options.extra
    this.retryAfter = options.retryAfter
  }
}

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError
}

/**
 * A 402 with an x402 challenge: the caller must pay (x402 challenge) or the payment was rejected.
 * (A 402 without a challenge, when this server takes no x402 payments, is a ServiceError with code
 * `payment_required`: a problem document.) Not a problem document
 * (spec: Authentication, x402 details). Core hands over the challenge as a value; the HTTP adapter
 * sends `body` and the base64 of `paymentRequired` in PAYMENT-REQUIRED, the MCP adapter sends
 * `paymentRequired` as the tool result.
 */
export class PaymentRequiredError extends Error {
  /** The JSON body of the HTTP 402 (x402 v1 network names, which `x402-fetch` reads). */
  readonly body: object
  /** The x402 v2 PaymentRequired object (PAYMENT-REQUIRED header, MCP transport). */
  readonly paymentRequired: object

  constructor(challenge: { body: object; paymentRequired: object }, message = 'payment required') {
    super(message)
    this.name = 'PaymentRequiredError'
    this.body = challenge.body
    this.paymentRequired = challenge.paymentRequired
  }
}
