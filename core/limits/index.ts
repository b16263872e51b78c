export {
  advanceRow,
  type CounterRow,
  type CounterStore,
  createEmbeddedCounterStore,
  createRateLimiter,
  createSharedCounterStore,
  type RateLimiter,
  type RateLimiterOptions,
  windowsOf,
} from './rate-limiter.ts'
export {
  DEFAULT_RATE_LIMITS,
  parseTierLimits,
  RateLimitedError,
  type RateLimitPolicy,
  type RateLimitState,
  type RateLimitWindow,
  type TierLimits,
} from './rate-limits.ts'
export { addressSubjectOf, mailboxOf } from './signup-subjects.ts'
