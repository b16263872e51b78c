import type { Tier } from '../context.ts'
import { ServiceError } from '../errors.ts'

/** Calls allowed per window; `Infinity`: no limit in that window. */
export interface TierLimits {
  perMinute: number
  /** Rolling 24 hours (hourly slots; see core/store/tables/limits.ts). */
  perDay: number
  /** Calendar month UTC: resets on the 1st at 00:00 UTC. */
  perMonth: number
}

/** spec: Limits. Per-tier numbers for keys, per-minute for x402 payers and for anonymous 402 challenges. */
export interface RateLimitPolicy {
  tiers: Record<Tier, TierLimits>
  /** A verified x402 payer (by address): per minute only, no daily or monthly cap (spec: Limits). */
  x402PerMinute: number
  /** 402 challenges answered to callers without a key or a verified payment, per client IP. */
  challengesPerMinute: number
  /**
   * Self-service key creation (POST /v1/keys/create): per client address (an IPv6 address by its
   * /64) and per normalised e-mail (core/limits/signup-subjects.ts), so one caller cannot multiply
   * its per-key limits by creating keys at will.
   */
  signups: { perAddress: TierLimits; perEmail: TierLimits }
}

/**
 * The documented defaults (docs/http-api.md, Rate limits). The spec leaves the numbers open ("not shown");
 * these keep a free key to light use and let paying tiers scale by an order of magnitude each.
 */
export const DEFAULT_RATE_LIMITS: RateLimitPolicy = {
  tiers: {
    sandbox: { perMinute: 30, perDay: 1_000, perMonth: 10_000 },
    free: { perMinute: 10, perDay: 500, perMonth: 5_000 },
    starter: { perMinute: 60, perDay: 10_000, perMonth: 200_000 },
    pro: { perMinute: 300, perDay: 100_000, perMonth: 2_000_000 },
    enterprise: { perMinute: 1_000, perDay: 1_000_000, perMonth: 20_000_000 },
  },
  x402PerMinute: 120,
  challengesPerMinute: 60,
  // A person needs a sandbox and a free key, and now and then a new one: 3 per e-mail per rolling
  // 24 hours; an office behind one address a few more, never a burst (5 per minute, 20 per day).
  signups: {
    perAddress: { perMinute: 5, perDay: 20, perMonth: Number.POSITIVE_INFINITY },
    perEmail: { perMinute: Number.POSITIVE_INFINITY, perDay: 3, perMonth: Number.POSITIVE_INFINITY },
  },
}

export type RateLimitWindow = 'minute' | 'day' | 'month'

/**
 * The limit a response reports (spec: 429 headers): the HTTP adapter renders it as
 * X-RateLimit-Limit / -Remaining / -Reset, the MCP adapter as `rateLimit` in the result.
 */
export interface RateLimitState {
  window: RateLimitWindow
  limit: number
  remaining: number
  /** When the window frees a call again (Unix seconds). */
  reset: number
}

/** A call refused by a limit (spec: Errors, 429). Never charged: it is refused before any payment moves. */
export class RateLimitedError extends ServiceError {
  readonly rateLimit: RateLimitState

  constructor(message: string, rateLimit: RateLimitState, retryAfter: number) {
    super('rate_limited', message, { retryAfter, extra: { limit_window: rateLimit.window } })
    this.name = 'RateLimitedError'
    this.rateLimit = rateLimit
  }
}

/** Parses `per-minute/per-day/per-month` (0: no limit in that window), e.g. `300/100000/2000000`. */
export function parseTierLimits(text: string): TierLimits | undefined {
  const parts = text.trim().split('/')
  if (parts.length !== 3 || !parts.every((part) => /^\d{1,10}$/.test(part.trim()))) return undefined
  const [perMinute, perDay, perMonth] = parts.map((part) => {
    const value = Number(part.trim())
    return value === 0 ? Number.POSITIVE_INFINITY : value
  }) as [number, number, number]
  if ([perMinute, perDay, perMonth].some((value) => Number.isFinite(value) && value > 2_000_000_000)) {
    return undefined
  }
  return { perMinute, perDay, perMonth }
}
