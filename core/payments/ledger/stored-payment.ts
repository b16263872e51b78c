import type { Hex } from 'viem'
import { findPaymentNetwork, type PaymentConfig } from '../networks.ts'
import type { EvmAuthorizationWire } from '../payment-header.ts'
import { authorizationToWire, type VerifiedPayment } from '../verify-result.ts'

/** A VerifiedPayment in JSON form (bigints as strings; the network is re-read from config). */
export interface StoredPayment {
  paymentId: string
  kind: VerifiedPayment['kind']
  network: string
  payer: string
  amount: string
  price: string
  requirement: Omit<VerifiedPayment['requirement'], 'network' | 'amount'> & { amount: string }
  paymentPayload: VerifiedPayment['paymentPayload']
  paymentRequirements: VerifiedPayment['paymentRequirements']
  authorization?: EvmAuthorizationWire
  signature?: string
  validBefore?: string
}

/** The payment as the ledger row keeps it (JSON). */
export function storePayment(payment: VerifiedPayment): StoredPayment {
  const { network: _network, amount, ...requirement } = payment.requirement
  const authorization = payment.authorization
  return {
    paymentId: payment.paymentId,
    kind: payment.kind,
    network: payment.network,
    payer: payment.payer,
    amount: payment.amount.toString(),
    price: payment.price.toString(),
    requirement: { ...requirement, amount: amount.toString() },
    paymentPayload: payment.paymentPayload,
    paymentRequirements: payment.paymentRequirements,
    ...(authorization ? { authorization: authorizationToWire(authorization) } : {}),
    ...(payment.signature ? { signature: payment.signature } : {}),
    ...(payment.validBefore ? { validBefore: payment.validBefore.toISOString() } : {}),
  }
}

/** The payment of a ledger row, with its network re-read from the current config. */
export function loadPayment(stored: StoredPayment, config: PaymentConfig): VerifiedPayment {
  const network = findPaymentNetwork(config, stored.network)
  if (!network) throw new Error(`network ${stored.network} is no longer configured`)
  const a = stored.authorization
  return {
    isValid: true,
    paymentId: stored.paymentId,
    kind: stored.kind,
    network: stored.network,
    payer: stored.payer,
    amount: BigInt(stored.amount),
    price: BigInt(stored.price),
    requirement: { ...stored.requirement, amount: BigInt(stored.requirement.amount), network },
    paymentPayload: stored.paymentPayload,
    paymentRequirements: stored.paymentRequirements,
    ...(a
      ? {
          authorization: {
            from: a.from as Hex,
            to: a.to as Hex,
            value: BigInt(a.value),
            validAfter: BigInt(a.validAfter),
            validBefore: BigInt(a.validBefore),
            nonce: a.nonce as Hex,
          },
        }
      : {}),
    ...(stored.signature ? { signature: stored.signature as Hex } : {}),
    ...(stored.validBefore ? { validBefore: new Date(stored.validBefore) } : {}),
  }
}
