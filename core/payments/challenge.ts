import { PAYMENT_ERROR_MESSAGES, type PaymentErrorCode } from './error-codes.ts'
import type { PaymentRequirement } from './requirements.ts'
import { toStandardRequirement } from './verify-result.ts'

/**
 * One `accepts` item: the x402 v2 fields, the spec's fields (spec: x402 details) and the x402 v1
 * fields (`maxAmountRequired`, `resource`, `mimeType`) so one list serves every client.
 */
export interface AcceptsItem {
  scheme: 'exact'
  /** CAIP-2 in the v2 view; the v1 name (`base-sepolia`) in the body view, when v1 has one. */
  network: string
  /** CAIP-2 id in both views. */
  networkId: string
  amount: string
  asset: string
  payTo: string
  maxTimeoutSeconds: number
  extra: Record<string, string>
  chainId: number | string
  currency: 'USDC'
  contractAddress: string
  recipient: string
  description: string
  maxAmountRequired: string
  resource: string
  mimeType: string
}

export interface PaymentRequiredObject {
  /** 2 in the header view (CAIP-2 networks); 1 in the body view (x402 v1 network names). */
  x402Version: 1 | 2
  error: string
  /** Only on a 402 that rejects a payment (spec: x402 details). */
  errorCode?: PaymentErrorCode
  resource: { url: string; description: string; mimeType: string }
  accepts: AcceptsItem[]
}

export interface PaymentChallenge {
  /** Pure x402 v2 (CAIP-2 networks): the `PAYMENT-REQUIRED` header and MCP `structuredContent`. */
  paymentRequired: PaymentRequiredObject
  /**
   * The JSON body of the HTTP 402: the same challenge as an x402 v1 object (`x402Version: 1`,
   * `network` in v1 naming, which `x402-fetch` requires), with the spec's fields on every item.
   */
  body: PaymentRequiredObject
}

/** Text of `error` for a plain challenge (no payment sent yet). */
export const PAYMENT_REQUIRED_MESSAGE = 'Payment required'

function acceptsItem(requirement: PaymentRequirement, view: 'v2' | 'body'): AcceptsItem {
  const { network } = requirement
  const standard = toStandardRequirement(requirement)
  return {
    ...standard,
    network: view === 'body' ? (network.v1Network ?? network.network) : network.network,
    networkId: network.network,
    chainId: network.chainId,
    currency: 'USDC',
    contractAddress: network.asset,
    recipient: network.payTo,
    description: requirement.description,
    maxAmountRequired: standard.amount,
    resource: requirement.resourceUrl,
    mimeType: requirement.mimeType,
  }
}

/** Base64 of UTF-8 JSON: the encoding of `PAYMENT-REQUIRED`, `PAYMENT-SIGNATURE` and `PAYMENT-RESPONSE`. */
export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
}

/**
 * Builds the 402 challenge (spec: Authentication, x402 details; DESIGN: Payments). Pass `rejection`
 * when a sent payment was refused: the challenge then carries `errorCode` beside `error`.
 *
 * Why two views: x402 v2 requires `network` in CAIP-2 form (`eip155:8453`) while x402 v1
 * clients (`x402-fetch`) parse the body and accept only v1 names (`base`). v2 clients read the
 * header, v1 clients the body, so the header holds the v2 view and the body the v1 one, each
 * declaring its own version (a v1 client copies the body's `x402Version` into its payment).
 * Every item of both views also carries the CAIP-2 id in `networkId` and the spec's fields.
 */
export function buildPaymentChallenge(
  requirements: readonly PaymentRequirement[],
  rejection?: { code: PaymentErrorCode; message?: string },
): PaymentChallenge {
  const first = requirements[0]
  if (!first) throw new RangeError('a payment challenge needs at least one requirement')
  const base = {
    error: rejection
      ? (rejection.message ?? PAYMENT_ERROR_MESSAGES[rejection.code])
      : PAYMENT_REQUIRED_MESSAGE,
    ...(rejection ? { errorCode: rejection.code } : {}),
    resource: { url: first.resourceUrl, description: first.description, mimeType: first.mimeType },
  }
  const paymentRequired: PaymentRequiredObject = {
    x402Version: 2,
    ...base,
    accepts: requirements.map((r) => acceptsItem(r, 'v2')),
  }
  const body: PaymentRequiredObject = {
    x402Version: 1,
    ...base,
    accepts: requirements.map((r) => acceptsItem(r, 'body')),
  }
  return { paymentRequired, body }
}
