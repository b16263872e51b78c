import { createHash } from 'node:crypto'
import type { Clock } from '../context.ts'
import { matchRequirement, verifyEvmPayment } from './evm/verify.ts'
import type { FacilitatorClient } from './facilitator/client.ts'
import type { NonceStore } from './ledger/nonce-store.ts'
import type { PaymentConfig } from './networks.ts'
import { type DecodedPayment, decodePaymentHeader, parsePaymentPayload } from './payment-header.ts'
import type { PaymentRequirement } from './requirements.ts'
import { type VerifySvmDeps, verifySvmPayment } from './svm/verify.ts'
import { reject, toCanonicalPayload, toStandardRequirement, type VerifyResult } from './verify-result.ts'

export interface PaymentVerifierDeps {
  config: PaymentConfig
  nonceStore: NonceStore
  clock: Clock
  /** Verifies Solana payments when the service has no fee payer of its own (`solana` unset). */
  facilitator?: FacilitatorClient
  /**
   * The service's own Solana fee payer and RPC (SOLANA_FEE_PAYER_KEY, SOLANA_RPC_URL): Solana
   * payments are then verified here (verify-svm.ts) instead of by the facilitator.
   */
  solana?: VerifySvmDeps['solana']
}

/** Where the payment came from: an HTTP header value, or the MCP `_meta["x402/payment"]` object. */
export type PaymentSource = { header: string } | { payload: unknown }

export interface PaymentVerifier {
  /**
   * Decodes and verifies a payment against what this request accepts. Resolves to data for every
   * refusal (`{ isValid: false, invalidReason }`); rejects only when the NonceStore fails.
   */
  verify(
    source: PaymentSource,
    requirements: readonly PaymentRequirement[],
    options?: { claimNonce?: boolean },
  ): Promise<VerifyResult>
}

/**
 * The one entry point for the HTTP 402 flow and the MCP `x402/payment` flow (spec: Authentication,
 * x402). EVM payments are verified locally (signature, window, amount, nonce); Solana payments
 * locally too when the service has its own fee payer (verify-svm.ts), else through the
 * facilitator, whose answer is then nonce-claimed by transaction hash so one payment cannot buy
 * two calls.
 */
export function createPaymentVerifier(deps: PaymentVerifierDeps): PaymentVerifier {
  return {
    async verify(source, requirements, options = {}) {
      const decoded =
        'header' in source ? decodePaymentHeader(source.header) : parsePaymentPayload(source.payload)
      if (!decoded.ok) return reject(decoded.code, decoded.message)
      const payment = decoded.payment
      const now = deps.clock.now()
      const requirement = matchRequirement(requirements, payment.network)
      const claimNonce = options.claimNonce !== false
      if (requirement?.network.kind === 'solana') {
        if (deps.solana) {
          const { solana, config, nonceStore } = deps
          return verifySvmPayment({ config, nonceStore, solana }, { payment, requirement, now, claimNonce })
        }
        return verifySolana(deps, payment, requirement, now, claimNonce)
      }
      return verifyEvmPayment(deps, { payment, requirements, now, claimNonce })
    },
  }
}

async function verifySolana(
  deps: PaymentVerifierDeps,
  payment: DecodedPayment,
  requirement: PaymentRequirement,
  now: Date,
  claimNonce: boolean,
): Promise<VerifyResult> {
  if (payment.scheme !== 'exact')
    return reject('unsupported_scheme', `scheme ${payment.scheme} is not accepted`)
  const transaction = payment.payload.transaction
  if (typeof transaction !== 'string' || transaction.length === 0) {
    return reject('malformed_payload', 'Solana payload needs a base64 transaction')
  }
  if (!deps.facilitator)
    return reject('unsupported_network', `${requirement.network.network} needs a facilitator`)
  const paymentPayload = toCanonicalPayload(requirement, { transaction })
  const paymentRequirements = toStandardRequirement(requirement)
  const answer = await deps.facilitator.verify(paymentPayload, paymentRequirements)
  if (!answer.isValid) return reject(answer.invalidReason, answer.invalidMessage, answer.payer)
  const digest = `0x${createHash('sha256').update(transaction).digest('hex')}`
  const expiresAt = new Date(now.getTime() + deps.config.replayWindowSeconds * 1000)
  const network = requirement.network.network
  if (claimNonce && !(await deps.nonceStore.claim(network, digest, answer.payer, expiresAt))) {
    return reject('nonce_replay', 'this Solana transaction was already used', answer.payer)
  }
  return {
    isValid: true,
    paymentId: `${network}:${answer.payer}:${digest}`,
    kind: 'solana',
    network,
    payer: answer.payer,
    amount: requirement.amount,
    price: requirement.amount,
    requirement,
    paymentPayload,
    paymentRequirements,
  }
}
