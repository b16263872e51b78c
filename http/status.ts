import { PaymentRequiredError, ServiceError, type ServiceErrorCode } from '../core/errors.ts'
import type { UsageOutcome } from '../core/usage/usage-recorder.ts'

/** The HTTP status of each ServiceError code (the HTTP adapter's table; core knows no statuses). */
const STATUS_BY_CODE: Readonly<Record<ServiceErrorCode, number>> = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  validation_failed: 422,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
}

/** The HTTP status a failure maps to. */
export function statusOf(error: unknown): number {
  if (error instanceof ServiceError) return STATUS_BY_CODE[error.code]
  if (error instanceof PaymentRequiredError) return 402
  return 500
}

/**
 * The answer the client closed the connection before receiving whole (the common "client closed
 * request" code): usage reports count such calls apart from delivered 200s.
 */
export const UNDELIVERED_STATUS = 499

/** The HTTP status of a recorded call outcome (usage reports count calls by status). */
export function statusOfOutcome(outcome: UsageOutcome): number {
  if (outcome === 'ok') return 200
  if (outcome === 'undelivered') return UNDELIVERED_STATUS
  if (outcome === 'payment_required') return 402
  return STATUS_BY_CODE[outcome]
}
