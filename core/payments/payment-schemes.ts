import type { PaymentErrorCode } from './error-codes.ts'
import type { NetworkKind } from './networks.ts'
import type { DecodedPayment } from './payment-header.ts'
import type { PaymentRequirement } from './requirements.ts'
import type { SettleResult, Settler } from './settle-result.ts'
import type { VerifiedPayment, VerifyResult } from './verify-result.ts'

/** Why the chain says a verified payment cannot be paid, or undefined (it can, or the chain could not be asked). */
export type FundsRefusal = { code: PaymentErrorCode; message: string }

/**
 * Asked before an x402 call runs: a signature can be valid while the payer holds too little USDC
 * or has already used the authorization, and the call would otherwise be answered before
 * settlement finds out (or, with the facilitator down, long after).
 */
export type FundsCheck = (payment: VerifiedPayment) => Promise<FundsRefusal | undefined>

/**
 * What one payment mechanism does for the networks of its kind (in the manner of x402's
 * `register(network, scheme)`): EVM `exact` (EIP-3009) in evm/scheme.ts, Solana `exact` in
 * svm/scheme.ts. The verifier, the settler, the funds check and the settlement sweep look the
 * mechanism up by the payment's network kind instead of branching on it.
 */
export interface PaymentScheme {
  /**
   * Verifies a payment against the requirement of its network and, unless `claimNonce` is false,
   * claims it so it cannot pay twice. Resolves to data for every refusal; rejects only when the
   * nonce store (or an RPC it must ask) fails.
   */
  verify(
    payment: DecodedPayment,
    requirement: PaymentRequirement,
    options: { now: Date; claimNonce: boolean },
  ): Promise<VerifyResult>
  /** Settles a verified payment; absent when nothing here can settle this kind. */
  settle?: Settler['settle']
  /** Checks before the call runs that the payment can still settle (X402_FUNDS_CHECK). */
  fundsCheck?: FundsCheck
  /**
   * Whether a payment already landed on chain (the sweep of interrupted settlements, the retry of
   * one whose nonce turned out used): true only when its transfer to payTo went through; false
   * when it did not (never sent, or its nonce used by something else: cancelled, another
   * transfer); undefined when the chain cannot tell.
   */
  authorizationUsed?(payment: VerifiedPayment): Promise<boolean | undefined>
}

/** The mechanisms this deployment accepts, one per network kind; a kind without one is not accepted. */
export type PaymentSchemes = { readonly [kind in NetworkKind]?: PaymentScheme }

/**
 * Settles each payment with the mechanism of its kind. A kind without a settling mechanism is a
 * final `unsupported_network` (retrying cannot help), never a throw.
 */
export function schemeSettler(schemes: PaymentSchemes): Settler {
  return {
    async settle(payment): Promise<SettleResult> {
      const settle = schemes[payment.kind]?.settle
      if (settle) return settle(payment)
      return {
        success: false,
        network: payment.network,
        payer: payment.payer,
        errorReason: 'unsupported_network',
        errorMessage: `nothing settles ${payment.network} payments here`,
        retryable: false,
      }
    },
  }
}

/** The funds check of each payment's mechanism; undefined when no mechanism has one. */
export function schemeFundsCheck(schemes: PaymentSchemes): FundsCheck | undefined {
  if (!Object.values(schemes).some((scheme) => scheme?.fundsCheck)) return undefined
  return async (payment) => schemes[payment.kind]?.fundsCheck?.(payment)
}

/** Asks each payment's mechanism whether it landed; undefined when no mechanism can tell. */
export function schemeAuthorizationUsed(
  schemes: PaymentSchemes,
): ((payment: VerifiedPayment) => Promise<boolean | undefined>) | undefined {
  if (!Object.values(schemes).some((scheme) => scheme?.authorizationUsed)) return undefined
  return async (payment) => schemes[payment.kind]?.authorizationUsed?.(payment)
}
