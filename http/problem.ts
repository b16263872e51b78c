import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
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

export function problemResponse(
  c: Context,
  status: number,
  detail: unknown,
  extra: Record<string, unknown> = {},
): Response {
  return c.body(JSON.stringify(problem(status, detail, extra)), status as ContentfulStatusCode, {
    'Content-Type': 'application/problem+json',
  })
}
