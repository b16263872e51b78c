import type { Caller, Clock } from '../context.ts'
import { PaymentRequiredError, ServiceError } from '../errors.ts'
import type { ApiKeyService } from '../keys/api-keys.ts'
import type { SettlementLedger } from '../ledger/settlement-ledger.ts'
import type { SettlementService } from '../ledger/settlement-service.ts'
import {
  type Charge,
  type ChargeRequest,
  freeCharge,
  openAccountCharge,
  type PaymentGate,
} from '../operations/charging.ts'
import { priceFor } from '../operations/define.ts'
import { buildPaymentChallenge, buildPaymentRequirements, type PaymentRequirement } from './challenge.ts'
import type { PaymentErrorCode } from './error-codes.ts'
import type { PaymentConfig } from './networks.ts'
import type { PaymentSource, PaymentVerifier } from './payment-verifier.ts'
import { buildPaymentResponse, paymentSuccessHeaders } from './settlement.ts'
import type { VerifiedPayment } from './verification.ts'

/** `_meta` key of the settlement answer in an MCP tool result (x402 MCP transport). */
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response'

export interface X402Payments {
  config: PaymentConfig
  verifier: PaymentVerifier
  ledger: SettlementLedger
  settlement: SettlementService
}

export interface PaymentGateOptions {
  keys: ApiKeyService
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
  const charge: Charge = {
    paidWith: 'x402',
    amount: verified.amount,
    caller,
    headers: {},
    meta: {},
    async complete() {
      const outcome = await x402.settlement.settleReserved(ledgerId, verified)
      if (outcome.kind === 'failed') {
        const code: PaymentErrorCode = outcome.result.errorReason ?? 'settlement_failed'
        throw new PaymentRequiredError(
          buildPaymentChallenge([verified.requirement], { code, message: outcome.result.errorMessage }),
          'settlement failed',
        )
      }
      if (outcome.kind === 'settled') {
        Object.assign(charge.headers, paymentSuccessHeaders(verified, outcome.result))
        charge.meta[X402_PAYMENT_RESPONSE_META] = buildPaymentResponse(outcome.result)
        return
      }
      // Deferred: the authorization is verified and held; the retry worker settles it before it
      // expires. The caller is told settlement is pending (spec: X-Payment-Fallback).
      Object.assign(charge.headers, {
        'X-Payment-Verified': 'true',
        'X-Payment-Amount': verified.amount.toString(),
        'X-Payment-Fallback': 'true',
        'X-Payment-Settlement': 'pending',
      })
      charge.meta[X402_PAYMENT_RESPONSE_META] = { ...buildPaymentResponse(outcome.result), pending: true }
    },
    async cancel() {
      await x402.ledger.release(ledgerId, 'operation failed; nothing charged')
    },
  }
  return charge
}

/**
 * The one charging path (DESIGN: Payments): a payment, when sent, pays per call at the x402
 * price; otherwise a live key pays from its balance at the account price; anyone else, or a key
 * whose balance does not cover the call, gets the 402 challenge.
 */
export function createPaymentGate(options: PaymentGateOptions): PaymentGate {
  const { keys, x402 } = options

  function challengeRequirements(request: ChargeRequest): PaymentRequirement[] | undefined {
    if (!x402 || !request.operation.price) return undefined
    const amount = priceFor(request.operation.price.x402, request.quality) * BigInt(request.units ?? 1)
    return buildPaymentRequirements(x402.config, {
      amount,
      resourceUrl: request.resourceUrl,
      description: `${request.operation.summary} (${request.quality})`,
    })
  }

  return {
    async open(request): Promise<Charge> {
      const { caller, operation } = request
      if (caller.kind === 'key' && caller.role === 'admin') return freeCharge(caller, 'operator')
      if (!operation.price) {
        if (caller.kind !== 'key')
          throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
        return freeCharge(caller, 'free')
      }
      const requirements = challengeRequirements(request)
      const keyCaller = caller.kind === 'key' ? caller : undefined

      if (requirements && x402 && paymentSource(request.payment)) {
        const verified = await requireVerifiedPayment(x402, request.payment, requirements)
        const payer: Caller = keyCaller ?? { kind: 'x402', payer: verified.payer, network: verified.network }
        return openX402Charge(x402, verified, operation.id, keyCaller?.keyId ?? null, payer)
      }
      if (keyCaller) {
        const charge = await openAccountCharge(keys, { ...request, caller: keyCaller })
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
