import { type Address, getAddress, type Hex } from 'viem'
import type { NonceStore } from '../ledger/nonce-store.ts'
import { MAX_SIGNATURE_LIFETIME_SECONDS, type PaymentConfig } from '../networks.ts'
import { type DecodedPayment, ExactEvmPayloadSchema } from '../payment-header.ts'
import { matchRequirement, type PaymentRequirement } from '../requirements.ts'
import {
  authorizationToWire,
  type EvmAuthorization,
  reject,
  toCanonicalPayload,
  toStandardRequirement,
  type VerifyResult,
} from '../verify-result.ts'
import { transferWithAuthorizationDigest } from './eip3009.ts'
import { checkSignature } from './signature-check.ts'

export interface VerifyPaymentDeps {
  config: PaymentConfig
  nonceStore: NonceStore
}

export interface VerifyPaymentInput {
  payment: DecodedPayment
  /** What this request accepts (from `buildPaymentRequirements` / `paymentRequirementsFor`). */
  requirements: readonly PaymentRequirement[]
  now: Date
  /**
   * Claim the nonce (default true). False only for a dry run such as the facilitator route
   * `/x402/verify`, which must not consume the payment it is asked about.
   */
  claimNonce?: boolean
}

/** EIP-712 domain when a network gives none (spec: name `USD Coin`, version `2`). */
const DEFAULT_DOMAIN = { name: 'USD Coin', version: '2' }

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * Verifies an EVM `exact` (EIP-3009) payment locally (spec: x402 details; DESIGN: Payments).
 * Checks run cheapest first: scheme, network, shape, asset, recipient, amount, time window, then
 * the EIP-712 signature, and only for a valid signature the nonce claim, so a forged payment can
 * never burn a real payer's nonce. Resolves to data for every refusal; only a failing NonceStore
 * rejects.
 */
export async function verifyEvmPayment(
  deps: VerifyPaymentDeps,
  input: VerifyPaymentInput,
): Promise<VerifyResult> {
  const { payment } = input
  if (payment.scheme !== 'exact')
    return reject('unsupported_scheme', `scheme ${payment.scheme} is not accepted`)
  const requirement = matchRequirement(input.requirements, payment.network)
  if (!requirement) return reject('unsupported_network', `network ${payment.network} is not accepted`)
  const network = requirement.network
  if (network.kind !== 'evm' || typeof network.chainId !== 'number') {
    return reject('unsupported_network', `network ${network.network} is not verified locally`)
  }

  const parsed = ExactEvmPayloadSchema.safeParse(payment.payload)
  if (!parsed.success) return reject('malformed_payload', 'payload needs signature and authorization')
  const wire = parsed.data.authorization
  const signature = parsed.data.signature as Hex
  // Lower-case first: a wrongly checksummed address is still an address, not an exception.
  const payer = getAddress(wire.from.toLowerCase())

  if (payment.accepted && !sameAddress(payment.accepted.asset, network.asset)) {
    return reject('wrong_asset', `asset ${payment.accepted.asset} is not ${network.asset}`, payer)
  }
  if (!sameAddress(wire.to, network.payTo)) {
    return reject('wrong_recipient', `recipient ${wire.to} is not the payTo address`, payer)
  }
  const authorization: EvmAuthorization = {
    from: payer,
    to: getAddress(wire.to.toLowerCase()),
    value: BigInt(wire.value),
    validAfter: BigInt(wire.validAfter),
    validBefore: BigInt(wire.validBefore),
    nonce: wire.nonce.toLowerCase() as Hex,
  }
  if (authorization.value < requirement.amount) {
    return reject(
      'insufficient_amount',
      `amount ${wire.value} is below the price ${requirement.amount}`,
      payer,
    )
  }
  const nowSeconds = BigInt(Math.floor(input.now.getTime() / 1000))
  if (authorization.validAfter > nowSeconds) {
    return reject('not_yet_valid', `validAfter ${wire.validAfter} is in the future`, payer)
  }
  if (authorization.validBefore <= nowSeconds + BigInt(deps.config.settlementMarginSeconds)) {
    return reject('expired', `validBefore ${wire.validBefore} has passed or is too close to settle`, payer)
  }
  if (authorization.validBefore > nowSeconds + BigInt(MAX_SIGNATURE_LIFETIME_SECONDS)) {
    return reject(
      'valid_before_too_far',
      `validBefore ${wire.validBefore} is more than 5 minutes ahead`,
      payer,
    )
  }

  const domain = network.eip712 ?? DEFAULT_DOMAIN
  let signatureValid = false
  try {
    const hash = transferWithAuthorizationDigest(
      {
        name: domain.name,
        version: domain.version,
        chainId: network.chainId,
        verifyingContract: network.asset as Address,
      },
      authorization,
    )
    signatureValid = await checkSignature({ address: payer, hash, signature })
  } catch {
    signatureValid = false
  }
  if (!signatureValid) return reject('invalid_signature', 'signature does not match the authorization', payer)

  const paymentId = `${network.network}:${payer.toLowerCase()}:${authorization.nonce}`
  if (input.claimNonce !== false) {
    const expiresAt = new Date(input.now.getTime() + deps.config.replayWindowSeconds * 1000)
    const firstUse = await deps.nonceStore.claim(network.network, authorization.nonce, payer, expiresAt)
    if (!firstUse) {
      return reject('nonce_replay', `nonce ${authorization.nonce} was already used`, payer, paymentId)
    }
  }

  const paymentRequirements = toStandardRequirement(requirement)
  return {
    isValid: true,
    paymentId,
    kind: 'evm',
    network: network.network,
    payer,
    amount: authorization.value,
    price: requirement.amount,
    requirement,
    paymentPayload: toCanonicalPayload(requirement, {
      signature,
      authorization: authorizationToWire(authorization),
    }),
    paymentRequirements,
    authorization,
    signature,
    validBefore: new Date(Number(authorization.validBefore) * 1000),
  }
}
