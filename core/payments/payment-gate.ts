import type { Caller, Clock } from '../context.ts'
import { PaymentRequiredError, ServiceError } from '../errors.ts'
import type { KeyReservations } from '../keys/reservations.ts'
import { buildPaymentChallenge } from './challenge.ts'
import {
  type Charge,
  type ChargeRequest,
  chargeAmount,
  freeCharge,
  openAccountCharge,
  type PaymentGate,
  type SettlementReceipt,
} from './charge.ts'
import type { PaymentErrorCode } from './error-codes.ts'
import type { SettlementService } from './ledger/settle-and-retry.ts'
import type { SettlementLedger } from './ledger/settlement-ledger.ts'
import type { PaymentConfig } from './networks.ts'
import type { FundsCheck } from './payment-schemes.ts'
import { buildPaymentRequirements, type PaymentRequirement } from './requirements.ts'
import { buildPaymentResponse, type SettleResult } from './settle-result.ts'
import type { PaymentSource, PaymentVerifier } from './verify-payment.ts'
import type { VerifiedPayment } from './verify-result.ts'

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

/** Verifies a payment for these requirements, or throws the 402 that says why it was refused. */
export async function requireVerifiedPayment(
  x402: X402Payments,
  payment: unknown,
  requirements: PaymentRequirement[],
): Promise<VerifiedPayment> {
  const source = paymentSource(payment)
  if (!source) throw new PaymentRequiredError(buildPaymentChallenge(requirements))
  let verified: Awaited<ReturnType<PaymentVerifier['verify']>>
  try {
    verified = await x402.verifier.verify(source, requirements)
  } catch (error) {
    throw new ServiceError('unavailable', 'payment verification is unavailable; try again shortly', {
      cause: error,
      retryAfter: 5,
    })
  }
  if (!verified.isValid) {
    throw new PaymentRequiredError(
      buildPaymentChallenge(requirements, { code: verified.invalidReason, message: verified.invalidMessage }),
      verified.invalidMessage,
    )
  }
  return verified
}

/**
 * Opens an x402 charge: the verified payment gets a ledger row before the operation runs;
 * `complete` settles it (or defers a retryable failure), `cancel` releases it unspent.
 */
export async function openX402Charge(
  x402: X402Payments,
  verified: VerifiedPayment,
  operation: string,
  keyId: string | null,
  caller: Caller,
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

/**
 * The one charging path (DESIGN: Payments): a payment, when sent, pays per call at the x402
 * price; otherwise a live key pays from its balance at the account price; anyone else, or a key
 * whose balance does not cover the call, gets the 402 challenge.
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

      if (requirements && x402 && paymentSource(request.payment)) {
        const verified = await requireVerifiedPayment(x402, request.payment, requirements)
        const refusal = await x402.fundsCheck?.(verified)
        if (refusal)
          throw new PaymentRequiredError(buildPaymentChallenge(requirements, refusal), refusal.message)
        const payer: Caller = keyCaller ?? { kind: 'x402', payer: verified.payer, network: verified.network }
        // Limited before the ledger row: a refused payment is neither reserved nor settled.
        await request.admit?.(payer)
        return openX402Charge(x402, verified, request.operationId, keyCaller?.keyId ?? null, payer)
      }
      if (keyCaller) {
        await request.admit?.(keyCaller)
        const charge = await openAccountCharge(reservations, { ...request, caller: keyCaller })
        if (charge) return charge
        if (requirements) {
          throw new PaymentRequiredError(
            buildPaymentChallenge(requirements, {
              code: 'insufficient_balance',
              message: 'the key balance does not cover this call; top up or pay this call with x402',
            }),
          )
        }
        throw new ServiceError(
          'forbidden',
          'insufficient balance: top up the key (POST /v1/keys/upgrade/{tier})',
        )
      }
      if (requirements) throw new PaymentRequiredError(buildPaymentChallenge(requirements))
      throw new ServiceError(
        'unauthorized',
        'an API key is required (X-API-Key); x402 payments are not configured',
      )
    },
  }
}
