import type { Clock } from '../context.ts'
import { decodePaymentHeader, parsePaymentPayload } from './payment-header.ts'
import type { PaymentSchemes } from './payment-schemes.ts'
import { matchRequirement, type PaymentRequirement } from './requirements.ts'
import { reject, type VerifyResult } from './verify-result.ts'

export interface PaymentVerifierDeps {
  clock: Clock
  /** The mechanism of each accepted network kind (EVM, Solana): each verifies its own payments. */
  schemes: PaymentSchemes
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
 * x402): decodes the payment, finds the requirement of its network and hands it to the mechanism
 * registered for that network's kind (payment-schemes.ts). A scheme other than `exact`, a network
 * not offered for this request, or one whose kind has no mechanism here is refused.
 */
export function createPaymentVerifier(deps: PaymentVerifierDeps): PaymentVerifier {
  return {
    async verify(source, requirements, options = {}) {
      const decoded =
        'header' in source ? decodePaymentHeader(source.header) : parsePaymentPayload(source.payload)
      if (!decoded.ok) return reject(decoded.code, decoded.message)
      const payment = decoded.payment
      if (payment.scheme !== 'exact')
        return reject('unsupported_scheme', `scheme ${payment.scheme} is not accepted`)
      const requirement = matchRequirement(requirements, payment.network)
      if (!requirement) return reject('unsupported_network', `network ${payment.network} is not accepted`)
      const scheme = deps.schemes[requirement.network.kind]
      if (!scheme) {
        return reject(
          'unsupported_network',
          `${requirement.network.network} payments cannot be verified here`,
        )
      }
      return scheme.verify(payment, requirement, {
        now: deps.clock.now(),
        claimNonce: options.claimNonce !== false,
      })
    },
  }
}
