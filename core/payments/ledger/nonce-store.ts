import type { Clock } from '../../context.ts'
import { ServiceError } from '../../errors.ts'

/**
 * Records used payment nonces (spec: Limits, nonce replay window 5 minutes). The database
 * implementation keeps one row per (network, payer, nonce) under a unique index.
 */
export interface NonceStore {
  /**
   * Claims a nonce atomically. Resolves true only for the first claim of (network, payer, nonce)
   * that is still remembered; false for a replay. `expiresAt` is when the row may be forgotten
   * (at or after the payment's validBefore, after which the signature is worthless anyway).
   * `payer` is compared case-insensitively.
   */
  claim(network: string, nonce: string, payer: string, expiresAt: Date): Promise<boolean>
}

export interface MemoryNonceStoreOptions {
  clock: Clock
  /** Bound on remembered nonces; expired entries are swept before this is enforced. */
  maxEntries?: number
}

export interface MemoryNonceStore extends NonceStore {
  /** Number of remembered, unexpired nonces (for tests). */
  size(): number
}

/**
 * In-process NonceStore for tests and single-instance development. `claim` checks and writes
 * in one synchronous step, so concurrent claims on one event loop cannot both win.
 */
export function createMemoryNonceStore(options: MemoryNonceStoreOptions): MemoryNonceStore {
  const maxEntries = options.maxEntries ?? 1_000_000
  const entries = new Map<string, number>()
  const sweep = (now: number) => {
    for (const [key, expiresAt] of entries) if (expiresAt <= now) entries.delete(key)
  }
  return {
    async claim(network, nonce, payer, expiresAt) {
      const now = options.clock.now().getTime()
      const key = `${network}|${payer.toLowerCase()}|${nonce.toLowerCase()}`
      const existing = entries.get(key)
      if (existing !== undefined && existing > now) return false
      if (entries.size >= maxEntries) {
        sweep(now)
        if (entries.size >= maxEntries)
          throw new ServiceError('unavailable', 'payment nonce store is full', { retryAfter: 60 })
      }
      entries.set(key, expiresAt.getTime())
      return true
    },
    size() {
      const now = options.clock.now().getTime()
      sweep(now)
      return entries.size
    },
  }
}
