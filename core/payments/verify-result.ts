import type { Address, Hex } from 'viem'
import type { Micros } from '../money.ts'
import type { PaymentErrorCode } from './error-codes.ts'
import { type NetworkKind, requirementExtra } from './networks.ts'
import type { EvmAuthorizationWire } from './payment-header.ts'
import type { PaymentRequirement } from './requirements.ts'

/** The x402 v2 standard fields of a requirement, as facilitators expect `paymentRequirements`. */
export interface StandardRequirement {
  scheme: 'exact'
  network: string
  amount: string
  asset: string
  payTo: string
  maxTimeoutSeconds: number
  extra: Record<string, string>
}

/** A payment re-wrapped as a canonical x402 v2 payload, whatever envelope the client used. */
export interface CanonicalPaymentPayload {
  x402Version: 2
  resource: { url: string; description: string; mimeType: string }
  accepted: StandardRequirement
  payload: Record<string, unknown>
}

/** The EIP-3009 authorization with integers as bigint. */
export interface EvmAuthorization {
  from: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
}

/** A payment that passed every check and whose nonce is now claimed: ready to serve and settle. */
export interface VerifiedPayment {
  isValid: true
  /** Stable id of this payment for the settlement ledger: `network:payer:nonce` (EVM). */
  paymentId: string
  kind: NetworkKind
  /** CAIP-2 network. */
  network: string
  payer: string
  /** Authorized amount in micro-USDC: what settlement transfers; `X-Payment-Amount`. */
  amount: Micros
  /** The price asked by the challenge (amount >= price). */
  price: Micros
  requirement: PaymentRequirement
  /** For facilitators and the ledger: the payment as a canonical v2 payload plus its requirement. */
  paymentPayload: CanonicalPaymentPayload
  paymentRequirements: StandardRequirement
  /** EVM only. */
  authorization?: EvmAuthorization
  signature?: Hex
  /** When the signature stops being settleable (EVM validBefore). */
  validBefore?: Date
}

export interface RejectedPayment {
  isValid: false
  invalidReason: PaymentErrorCode
  invalidMessage: string
  payer?: string
  /**
   * `nonce_replay` only: the id the payment had when it was first used (same form as
   * VerifiedPayment.paymentId), so the answer it bought can be looked up. Set only after the
   * signature verified: only the payer's own payload can name it.
   */
  paymentId?: string
}

/** x402-style verification outcome: `{ isValid: true, payer, amount, network, ... } | { isValid: false, invalidReason }`. */
export type VerifyResult = VerifiedPayment | RejectedPayment

/** The standard v2 requirement fields of one of our requirements. */
export function toStandardRequirement(requirement: PaymentRequirement): StandardRequirement {
  const { network } = requirement
  const extra = requirementExtra(network)
  return {
    scheme: 'exact',
    network: network.network,
    amount: requirement.amount.toString(),
    asset: network.asset,
    payTo: network.payTo,
    maxTimeoutSeconds: requirement.maxTimeoutSeconds,
    extra,
  }
}

/** Wraps a scheme payload as the canonical v2 payload sent to facilitators. */
export function toCanonicalPayload(
  requirement: PaymentRequirement,
  payload: Record<string, unknown>,
): CanonicalPaymentPayload {
  return {
    x402Version: 2,
    resource: {
      url: requirement.resourceUrl,
      description: requirement.description,
      mimeType: requirement.mimeType,
    },
    accepted: toStandardRequirement(requirement),
    payload,
  }
}

/** Serialises the EVM authorization back to its wire form (decimal strings). */
export function authorizationToWire(authorization: EvmAuthorization): EvmAuthorizationWire {
  return {
    from: authorization.from,
    to: authorization.to,
    value: authorization.value.toString(),
    validAfter: authorization.validAfter.toString(),
    validBefore: authorization.validBefore.toString(),
    nonce: authorization.nonce,
  }
}

/** The JSON answer of the facilitator route `/x402/verify` (spec: Facilitator routes). */
export function toVerifyResponse(result: VerifyResult): {
  isValid: boolean
  invalidReason?: PaymentErrorCode
  invalidMessage?: string
  payer?: string
} {
  if (result.isValid) return { isValid: true, payer: result.payer }
  return {
    isValid: false,
    invalidReason: result.invalidReason,
    invalidMessage: result.invalidMessage,
    ...(result.payer === undefined ? {} : { payer: result.payer }),
  }
}

export const reject = (
  invalidReason: PaymentErrorCode,
  invalidMessage: string,
  payer?: string,
  paymentId?: string,
): RejectedPayment => ({
  isValid: false,
  invalidReason,
  invalidMessage,
  ...(payer === undefined ? {} : { payer }),
  ...(paymentId === undefined ? {} : { paymentId }),
})
