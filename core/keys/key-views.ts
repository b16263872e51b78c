import { microsToUsdNumber } from '../money.ts'
import type { KeyRecord } from './api-keys.ts'

/**
 * GET /v1/keys/usage body. Money is given exactly in micro-USDC (integers) and, for reading,
 * as USD numbers.
 */
export function keyUsageView(record: KeyRecord) {
  return {
    key_id: record.id,
    key_prefix: record.keyPrefix,
    email: record.email,
    tier: record.tier,
    mode: record.mode,
    status: record.status,
    balance_micros: Number(record.balanceMicros),
    balance_usdc: microsToUsdNumber(record.balanceMicros),
    spent_micros: Number(record.spentMicros),
    spent_usdc: microsToUsdNumber(record.spentMicros),
    paid_calls: Number(record.callCount),
    created_at: record.createdAt.toISOString(),
    expires_at: record.expiresAt?.toISOString() ?? null,
  }
}
