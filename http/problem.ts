import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { isServiceError } from '../core/errors.ts'
import { RateLimitedError, type RateLimitState } from '../core/limits/index.ts'
import { asDependencyFailure } from '../core/operations/invoke.ts'
import { rateLimitHeaders } from './rate-limit-headers.ts'
import { statusOf } from './status.ts'

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

export interface Problem {
  type: 'about:blank'
  title: string
  status: number
  detail: unknown
  instance?: string
  [extra: string]: unknown
}

/** RFC 7807 problem details (spec: Errors): type is always about:blank in v1. */
export function problem(status: number, detail: unknown, extra: Record<string, unknown> = {}): Problem {
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail, ...extra }
}

/** The errorCode of a status when the failure names none (the ServiceError code of that status). */
const ERROR_CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal',
  503: 'unavailable',
}

/**
 * A problem document with `instance` (the request path) and `errorCode` (spec: Errors: entity
 * report errors carry both). A specific errorCode the failure gave (`report_not_found`,
 * `check_not_found`, `insufficient_balance`, ...) is kept; otherwise it is named after the status
 * (`missing_field` for a 400 that lists the missing fields). `type` stays about:blank (spec:
 * Versioning); the codes are listed in docs/company-checks.md.
 */
export function withInstance(document: Problem, instance: string): Problem {
  const status = document.status
  const errorCode =
    document.errorCode ??
    (status === 400 && Array.isArray(document.detail) ? 'missing_field' : ERROR_CODE_BY_STATUS[status]) ??
    'error'
  return { ...document, instance: document.instance ?? instance, errorCode }
}

export interface ProblemOutcome {
  status: number
  problem: Problem
  /** Seconds until a retry may succeed (Retry-After), when the failure says. */
  retryAfter?: number
  /** The limit that refused a call (429): X-RateLimit-* over HTTP, `rateLimit` over MCP. */
  rateLimit?: RateLimitState
}

/**
 * The problem document of any failure other than a 402, shared by the HTTP and MCP adapters: a
 * ServiceError shows its field list or message; anything else is a 500 whose detail carries only
 * the request id (never a stack), reported through `onUnexpected`.
 */
export function toProblem(
  thrown: unknown,
  requestId: string,
  onUnexpected?: (error: unknown, requestId: string) => void,
): ProblemOutcome {
  const error = asDependencyFailure(thrown)
  const status = statusOf(error)
  if (isServiceError(error)) {
    return {
      status,
      problem: problem(status, error.fields ?? error.message, error.extra),
      ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
      ...(error instanceof RateLimitedError ? { rateLimit: error.rateLimit } : {}),
    }
  }
  onUnexpected?.(error, requestId)
  return { status: 500, problem: problem(500, `unexpected error (request id ${requestId})`) }
}

export function problemResponse(
  c: Context,
  status: number,
  detail: unknown,
  extra: Record<string, unknown> = {},
): Response {
  return sendProblem(c, { status, problem: problem(status, detail, extra) })
}

/** Sends a problem document as `application/problem+json`, with Retry-After when it has one. */
export function sendProblem(c: Context, outcome: ProblemOutcome): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/problem+json' }
  if (outcome.retryAfter !== undefined) headers['Retry-After'] = String(outcome.retryAfter)
  if (outcome.rateLimit) Object.assign(headers, rateLimitHeaders(outcome.rateLimit))
  return c.body(JSON.stringify(outcome.problem), outcome.status as ContentfulStatusCode, headers)
}
