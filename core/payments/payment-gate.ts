import type { Caller, Clock } from '../context.ts'
import { PaymentRequiredError, ServiceError } from '../errors.ts'
import { tierAtLeast } from '../keys/api-keys.ts'
import type { KeyReservations } from '../keys/reservations.ts'
import { formatUsdShort } from '../money.ts'
import { buildPaymentChallenge } from './challenge.ts'
import {
  type Charge,
  type ChargeRequest,
  chargeAmount,
  freeCharge,
  openAccountCharge,
  type PaymentGate,
  type Receipt,
  type SettlementReceipt,
} from './charge.ts'
import type { PaymentErrorCode } from './error-codes.ts'
import type { SettlementService } from './ledger/settle-and-retry.ts'
import type { SettlementLedger } from './ledger/settlement-ledger.ts'
import type { PaymentConfig } from './networks.ts'
import type { FundsCheck } from './payment-schemes.ts'
import { KEY_UPGRADE_PRICES, UPGRADE_TIERS, type UpgradeTier } from './pricing.ts'
import { buildPaymentRequirements, type PaymentRequirement } from './requirements.ts'
import { buildPaymentResponse, type SettleResult } from './settle-result.ts'
import type { PaymentSource, PaymentVerifier } from './verify-payment.ts'
import type { RejectedPayment, VerifiedPayment, VerifyResult } from './verify-result.ts'

export interface X402Payments {
  config: PaymentConfig
  verifier: PaymentVerifier
  ledger: SettlementLedger
  settlement: SettlementService
  /** With an RPC: the payer's balance and the authorization's state, checked before the call runs. */
  fundsCheck?: FundsCheck
}

export interface PaymentGateOptions {
  /** Where key debits are reserved, captured and released. */
  reservations: KeyReservations
  clock: Clock
  /** Absent when x402 is not configured (no payTo): then only keys can pay. */
  x402?: X402Payments
}

/** Where a payment arrived: an HTTP header value (base64) or an MCP `_meta` object (or its base64). */
export function paymentSource(payment: unknown): PaymentSource | undefined {
  if (payment === undefined || payment === null || payment === '') return undefined
  return typeof payment === 'string' ? { header: payment } : { payload: payment }
}

/** Verifies a payment for these requirements: the verifier's verdict, or 503 when it cannot say. */
async function verifyPayment(
  x402: X402Payments,
  source: PaymentSource,
  requirements: PaymentRequirement[],
): Promise<VerifyResult> {
  try {
    return await x402.verifier.verify(source, requirements)
  } catch (error) {
    throw new ServiceError('unavailable', 'payment verification is unavailable; try again shortly', {
      cause: error,
      retryAfter: 5,
    })
  }
}

/** The 402 that says why a payment was refused. */
function paymentRefusal(refused: RejectedPayment, requirements: PaymentRequirement[]): PaymentRequiredError {
  return new PaymentRequiredError(
    buildPaymentChallenge(requirements, { code: refused.invalidReason, message: refused.invalidMessage }),
    refused.invalidMessage,
  )
}

/** Verifies a payment for these requirements, or throws the 402 that says why it was refused. */
export async function requireVerifiedPayment(
  x402: X402Payments,
  payment: unknown,
  requirements: PaymentRequirement[],
): Promise<VerifiedPayment> {
  const source = paymentSource(payment)
  if (!source) throw new PaymentRequiredError(buildPaymentChallenge(requirements))
  const verified = await verifyPayment(x402, source, requirements)
  if (!verified.isValid) throw paymentRefusal(verified, requirements)
  return verified
}

/**
 * A payment whose nonce was already used, presented again for the same request (same request
 * hash) after it was settled or deferred: a charge that serves the answer it bought and costs
 * nothing now. Undefined for anything else (another request, a payment released or failed): the
 * caller then gets the nonce-replay refusal.
 */
async function replayOfPayment(
  x402: X402Payments,
  refused: RejectedPayment,
  request: ChargeRequest,
): Promise<Charge | undefined> {
  if (refused.invalidReason !== 'nonce_replay' || !refused.paymentId || !request.requestHash) return undefined
  const kept = await x402.ledger.answerFor(refused.paymentId, request.requestHash)
  if (!kept) return undefined
  const payer: Caller =
    request.caller.kind === 'key'
      ? request.caller
      : { kind: 'x402', payer: kept.response.payer, network: kept.response.network }
  const receipt: Receipt = {
    paidWith: 'x402',
    amount: 0n,
    settlement: {
      state: kept.status === 'SETTLED' ? 'settled' : 'pending',
      amount: kept.amount,
      fallback: kept.status === 'PENDING' || kept.fallback,
      response: kept.response,
    },
  }
  return { ...freeCharge(payer, 'x402'), replay: { answer: kept.answer, receipt } }
}

/**
 * Opens an x402 charge: the verified payment gets a ledger row before the operation runs;
 * `complete` settles it (or defers a retryable failure) before the answer is sent, `keepAnswer`
 * keeps the answer for a retry with the same payment, `cancel` releases it unspent.
 */
export async function openX402Charge(
  x402: X402Payments,
  verified: VerifiedPayment,
  operation: string,
  keyId: string | null,
  caller: Caller,
  requestHash?: string,
): Promise<Charge> {
  const ledgerId = await x402.ledger.reserve(verified, operation, keyId)
  return {
    paidWith: 'x402',
    amount: verified.amount,
    caller,
    async complete() {
      const outcome = await x402.settlement.settleReserved(ledgerId, verified)
      if (outcome.kind === 'refused') {
        const code: PaymentErrorCode = outcome.result.errorReason ?? 'settlement_failed'
        throw new ServiceError(
          'unavailable',
          `payment settlement is unavailable right now (${outcome.result.errorMessage ?? code}); the answer is withheld and nothing was charged: sign a new payment and retry`,
          { retryAfter: 5, extra: { errorCode: code } },
        )
      }
      if (outcome.kind === 'failed') {
        const code: PaymentErrorCode = outcome.result.errorReason ?? 'settlement_failed'
        throw new PaymentRequiredError(
          buildPaymentChallenge([verified.requirement], { code, message: outcome.result.errorMessage }),
          'settlement failed',
        )
      }
      // Deferred: the authorization is verified and held; the retry worker settles it before it
      // expires. The caller is told settlement is pending (spec: X-Payment-Fallback).
      return {
        paidWith: 'x402',
        amount: verified.amount,
        settlement: settlementReceipt(
          verified,
          outcome.result,
          outcome.kind === 'settled' ? 'settled' : 'pending',
        ),
      }
    },
    // Settled before the answer was sent (the receipt carries the settlement), so delivery
    // changes nothing: an answer that did not arrive is served again to a retry with the same
    // payment (keepAnswer).
    finish: async () => {},
    async keepAnswer(answer) {
      if (requestHash !== undefined) await x402.ledger.keepAnswer(ledgerId, requestHash, answer)
    },
    async cancel() {
      await x402.ledger.release(ledgerId, 'operation failed; nothing charged')
    },
  }
}

/** The receipt of a settled (or deferred) x402 payment. */
export function settlementReceipt(
  payment: VerifiedPayment,
  result: SettleResult,
  state: SettlementReceipt['state'],
): SettlementReceipt {
  return {
    state,
    amount: payment.amount,
    fallback: state === 'pending' || result.fallback === true,
    response: buildPaymentResponse(result),
  }
}

/** What a key whose balance does not cover a call is told about topping it up (the 402's `top_up`). */
export interface TopUpAdvice {
  /** What this call costs from the balance (USD). */
  price_usd: string
  /** Where the key holder reads the balance. */
  balance_url: string
  /** x402 on: where a top-up is bought, `{tier}` one of `tiers`; absent when only the operator credits keys. */
  upgrade_url?: string
  /** x402 on: the top-ups this key can buy (its tier or higher), USD credited in full. */
  tiers?: Partial<Record<UpgradeTier, string>>
  /** How to top up, in words. */
  how: string
}

/**
 * The 402 of a key whose balance does not cover a call (spec: 402, never 403), with
 * `errorCode: insufficient_balance` and how to top up. With x402 on it is the challenge, so the
 * same call can also be paid per call at once; with x402 off there is nothing to pay per call, so
 * it is a problem document (402, no PAYMENT-REQUIRED) saying that the operator credits keys.
 */
function insufficientBalance(
  request: ChargeRequest & { caller: Extract<Caller, { kind: 'key' }> },
  requirements: PaymentRequirement[] | undefined,
): Error {
  const price = chargeAmount(request, 'account') ?? 0n
  const base = originOf(request.resourceUrl)
  const caller = request.caller
  if (requirements) {
    const tiers = Object.fromEntries(
      UPGRADE_TIERS.filter((tier) => tier === caller.tier || !tierAtLeast(caller.tier, tier)).map((tier) => [
        tier,
        formatUsdShort(KEY_UPGRADE_PRICES[tier]),
      ]),
    )
    const topUp: TopUpAdvice = {
      price_usd: formatUsdShort(price),
      balance_url: `${base}/v1/keys/usage`,
      upgrade_url: `${base}/v1/keys/upgrade/{tier}`,
      tiers,
      how: 'POST the upgrade URL with the tier; it is paid with x402 and the amount is credited to this key in full',
    }
    const message = `the key balance does not cover this call (${formatUsdShort(price)} USD): top up the key with POST /v1/keys/upgrade/{tier} (paid with x402: ${Object.entries(
      tiers,
    )
      .map(([tier, amount]) => `${tier} ${amount} USD`)
      .join(', ')}), or pay this call itself with x402 (accepts)`
    const challenge = buildPaymentChallenge(requirements, { code: 'insufficient_balance', message })
    return new PaymentRequiredError(
      {
        body: { ...challenge.body, top_up: topUp },
        paymentRequired: { ...challenge.paymentRequired, top_up: topUp },
      },
      message,
    )
  }
  const topUp: TopUpAdvice = {
    price_usd: formatUsdShort(price),
    balance_url: `${base}/v1/keys/usage`,
    how: 'this server takes no x402 payments, so keys are topped up by its operator: ask them to credit this key',
  }
  return new ServiceError(
    'payment_required',
    `the key balance does not cover this call (${formatUsdShort(price)} USD); this server takes no x402 payments, so its operator tops up keys: ask them to credit this key (balance: GET /v1/keys/usage)`,
    { extra: { errorCode: 'insufficient_balance', top_up: topUp } },
  )
}

/** The scheme, host and port of an absolute URL (the resource a challenge is for). */
function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return ''
  }
}

/**
 * The one charging path (DESIGN: Payments): a payment, when sent, pays per call at the x402
 * price; otherwise a live key pays from its balance at the account price; anyone else gets the
 * 402 challenge, and a key whose balance does not cover the call a 402 that says how to top up.
 */
export function createPaymentGate(options: PaymentGateOptions): PaymentGate {
  const { reservations, x402 } = options

  function challengeRequirements(request: ChargeRequest): PaymentRequirement[] | undefined {
    const amount = chargeAmount(request, 'x402')
    if (!x402 || amount === undefined) return undefined
    return buildPaymentRequirements(x402.config, {
      amount,
      resourceUrl: request.resourceUrl,
      description: request.description,
    })
  }

  return {
    async open(request): Promise<Charge> {
      const { caller } = request
      if (caller.kind === 'key' && caller.role === 'admin') return freeCharge(caller, 'operator')
      if (!request.price) {
        if (caller.kind !== 'key')
          throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
        await request.admit?.(caller)
        return freeCharge(caller, 'free')
      }
      const requirements = challengeRequirements(request)
      const keyCaller = caller.kind === 'key' ? caller : undefined

      const source = paymentSource(request.payment)
      if (requirements && x402 && source) {
        const verified = await verifyPayment(x402, source, requirements)
        if (!verified.isValid) {
          const replay = await replayOfPayment(x402, verified, request)
          if (replay) return replay
          throw paymentRefusal(verified, requirements)
        }
        const refusal = await x402.fundsCheck?.(verified)
        if (refusal)
          throw new PaymentRequiredError(buildPaymentChallenge(requirements, refusal), refusal.message)
        const payer: Caller = keyCaller ?? { kind: 'x402', payer: verified.payer, network: verified.network }
        // Limited before the ledger row: a refused payment is neither reserved nor settled.
        await request.admit?.(payer)
        return openX402Charge(
          x402,
          verified,
          request.operationId,
          keyCaller?.keyId ?? null,
          payer,
          request.requestHash,
        )
      }
      if (keyCaller) {
        await request.admit?.(keyCaller)
        const charge = await openAccountCharge(reservations, { ...request, caller: keyCaller })
        if (charge) return charge
        throw insufficientBalance({ ...request, caller: keyCaller }, requirements)
      }
      if (requirements) throw new PaymentRequiredError(buildPaymentChallenge(requirements))
      throw new ServiceError(
        'unauthorized',
        'an API key is required (X-API-Key); x402 payments are not configured',
      )
    },
  }
}
