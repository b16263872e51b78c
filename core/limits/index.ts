export { advanceRow, type CounterRow, type CounterStore, windowsOf } from './counter-row.ts'
export { createEmbeddedCounterStore } from './embedded-counter-store.ts'
export {
  DEFAULT_RATE_LIMITS,
  parseTierLimits,
  RateLimitedError,
  type RateLimitPolicy,
  type RateLimitState,
  type RateLimitWindow,
  type TierLimits,
} from './rate-limit-policy.ts'
export { createRateLimiter, type RateLimiter, type RateLimiterOptions } from './rate-limiter.ts'
export { createSharedCounterStore } from './shared-counter-store.ts'
export { addressSubjectOf, mailboxOf } from './signup-subjects.ts'
