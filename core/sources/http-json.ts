import { UpstreamFailure } from './source-result.ts'

/** The fetch signature the adapters need; defaults to Node's global fetch (undici). */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>

export interface JsonResponse {
  status: number
  headers: Headers
  /** Parsed JSON body, or `undefined` when the body is empty or not JSON. */
  json: unknown
  text: string
}

/** Bodies larger than this are not read (an upstream answering megabytes is misbehaving). */
const MAX_BODY_BYTES = 2 * 1024 * 1024

/**
 * One HTTP exchange that always reads the body as text and tries JSON, so callers can look at
 * upstream error bodies (KVK `fout`, VIES `errorWrappers`, RDAP `errorCode`) whatever the status.
 * Network errors propagate (the call runner maps them); the signal carries the timeout.
 */
export async function requestJson(
  fetchImpl: FetchLike,
  url: string | URL,
  init: RequestInit & { signal: AbortSignal },
): Promise<JsonResponse> {
  const response = await fetchImpl(url, init)
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > MAX_BODY_BYTES) {
    await response.body?.cancel()
    throw new UpstreamFailure('invalid_response', `body of ${declared} bytes is too large`)
  }
  const text = await response.text()
  if (text.length > MAX_BODY_BYTES) throw new UpstreamFailure('invalid_response', 'body too large')
  let json: unknown
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
  }
  return { status: response.status, headers: response.headers, json, text }
}

/** Failure for a status the adapter has no better reading of. */
export function failureForStatus(status: number, detail?: string): UpstreamFailure {
  const suffix = detail ? ` ${detail}` : ''
  if (status === 401 || status === 403) return new UpstreamFailure('auth_failed', `HTTP ${status}${suffix}`)
  if (status === 429) return new UpstreamFailure('rate_limited', `HTTP ${status}${suffix}`)
  if (status >= 500) return new UpstreamFailure('upstream_error', `HTTP ${status}${suffix}`)
  if (status >= 400) return new UpstreamFailure('request_rejected', `HTTP ${status}${suffix}`)
  return new UpstreamFailure('invalid_response', `HTTP ${status}${suffix}`)
}

/** Joins a base URL (with or without trailing slash) and a path. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}
