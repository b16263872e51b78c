import type { RateLimitState } from '../core/limits/index.ts'

/** spec: Errors, 429 headers; sent on successful calls too (the payer's tightest limit). */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  }
}
