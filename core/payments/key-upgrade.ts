import type { Caller } from '../context.ts'
import { PaymentRequiredError, ServiceError } from '../errors.ts'
import { type ApiKeyService, type KeyRecord, tierAtLeast } from '../keys/api-keys.ts'
import { formatUsd, MAX_BALANCE_MICROS } from '../money.ts'
import { buildPaymentChallenge } from './challenge.ts'
import type { SettlementReceipt } from './charge.ts'
import { requireVerifiedPayment, settlementReceipt, type X402Payments } from './payment-gate.ts'
import { KEY_UPGRADE_OPERATION_ID, KEY_UPGRADE_PRICES, UPGRADE_TIERS, type UpgradeTier } from './pricing.ts'
import { buildPaymentRequirements } from './requirements.ts'

export interface KeyUpgradeRequest {
  caller: Caller
  tier: string
  payment: unknown
  resourceUrl: string
}

export interface KeyUpgradeResult {
  record: KeyRecord
  credited: bigint
  settlement: SettlementReceipt
}

/**
 * POST /v1/keys/upgrade/{tier} (spec: Key operations): buys prepaid balance for a tier, paid with
 * x402 even by a key holder. The balance is credited only once the payment has settled, and the
 * ledger row and the credit are written in one transaction, so money and balance never disagree.
 * A settlement that cannot complete now is not retried later: nothing is taken, nothing credited.
 */
export async function purchaseKeyUpgrade(
  deps: { keys: ApiKeyService; x402?: X402Payments },
  request: KeyUpgradeRequest,
): Promise<KeyUpgradeResult> {
  const { caller } = request
  if (caller.kind !== 'key') throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
  if (caller.role === 'admin')
    throw new ServiceError('forbidden', 'the operator key has no balance to top up')
  if (caller.mode === 'sandbox') {
    throw new ServiceError('forbidden', 'sandbox keys cannot hold a balance; create a free key to upgrade')
  }
  if (!(UPGRADE_TIERS as readonly string[]).includes(request.tier)) {
    throw new ServiceError(
      'not_found',
      `no upgrade to tier ${request.tier}; tiers: ${UPGRADE_TIERS.join(', ')}`,
    )
  }
  const tier = request.tier as UpgradeTier
  if (tierAtLeast(caller.tier, tier) && caller.tier !== tier) {
    throw new ServiceError('validation_failed', 'invalid request', {
      fields: [{ field: 'tier', message: `the key is already ${caller.tier}; buy ${caller.tier} or higher` }],
    })
  }
  const x402 = deps.x402
  if (!x402) throw new ServiceError('unavailable', 'x402 payments are not configured on this server')
  const amount = KEY_UPGRADE_PRICES[tier]
  const requirements = buildPaymentRequirements(x402.config, {
    amount,
    resourceUrl: request.resourceUrl,
    description: `Prepaid balance for the ${tier} tier`,
  })
  const verified = await requireVerifiedPayment(x402, request.payment, requirements)
  // Refused before anything settles: a balance never goes above the maximum (nothing is lost).
  const current = await deps.keys.get(caller.keyId)
  if (current && current.balanceMicros + verified.amount > MAX_BALANCE_MICROS) {
    throw new ServiceError('validation_failed', 'top-up above the maximum balance', {
      fields: [
        {
          field: 'tier',
          message: `a top-up of ${formatUsd(verified.amount)} USD would take the balance above the maximum of ${formatUsd(MAX_BALANCE_MICROS)} USD; nothing was charged`,
        },
      ],
    })
  }
  const ledgerId = await x402.ledger.reserve(verified, `${KEY_UPGRADE_OPERATION_ID}:${tier}`, caller.keyId)
  await x402.ledger.beginAttempt(ledgerId, ['reserved'])
  const result = await x402.settlement.settleOnce(verified)
  if (!result.success) {
    await x402.ledger.failed(ledgerId, result.errorReason ?? 'settlement_failed')
    throw new PaymentRequiredError(
      buildPaymentChallenge(requirements, {
        code: result.errorReason ?? 'settlement_failed',
        message: result.errorMessage,
      }),
    )
  }
  const credit = verified.amount
  // SETTLED and the credit commit together (the ledger credits a top-up on every path to SETTLED).
  if (!(await x402.settlement.recordSettled(ledgerId, result))) {
    throw new ServiceError(
      'unavailable',
      `the payment settled${result.transaction ? ` (transaction ${result.transaction})` : ''} but the credit could not be written yet; it is retried and appears in GET /v1/keys/usage within a minute (do not pay again)`,
      { retryAfter: 10, extra: result.transaction ? { transaction: result.transaction } : undefined },
    )
  }
  const record = await deps.keys.get(caller.keyId)
  if (!record) throw new ServiceError('internal', 'key vanished during upgrade')
  return {
    record,
    credited: credit,
    settlement: settlementReceipt(verified, result, 'settled'),
  }
}
