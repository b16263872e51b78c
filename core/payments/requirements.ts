import type { Quality } from '../context.ts'
import type { Micros } from '../money.ts'
import type { PaymentConfig, PaymentNetwork } from './networks.ts'
import { type PricedOperationId, x402PriceFor } from './pricing.ts'

/** One way to pay for one request: a network, its USDC, the payTo and the exact amount asked. */
export interface PaymentRequirement {
  network: PaymentNetwork
  /** Micro-USDC (6-decimal units) the request costs at the requested quality. */
  amount: Micros
  resourceUrl: string
  description: string
  mimeType: string
  maxTimeoutSeconds: number
}

export interface RequirementsInput {
  amount: Micros
  /** Absolute URL of the paid resource (x402 v1 needs a URL; MCP may pass e.g. `mcp://tool/entity_check`). */
  resourceUrl: string
  description: string
  mimeType?: string
}

/**
 * Everything the service accepts as payment for one request, one item per configured network.
 * The same list renders the 402 challenge and checks the retried payment, so the verifier never
 * trusts what the client echoes back.
 */
export function buildPaymentRequirements(
  config: PaymentConfig,
  input: RequirementsInput,
): PaymentRequirement[] {
  if (input.amount <= 0n) throw new RangeError('a payment requirement needs a positive amount')
  return config.networks.map((network) => ({
    network,
    amount: input.amount,
    resourceUrl: publicResourceUrl(config.publicBaseUrl, input.resourceUrl),
    description: input.description,
    mimeType: input.mimeType ?? 'application/json',
    maxTimeoutSeconds: config.maxTimeoutSeconds,
  }))
}

/**
 * The resource URL a challenge names: the configured public origin with the request's path and
 * query. The origin of the request URL came from the client's Host header and is not repeated,
 * so a forged Host header cannot name another resource. Without a configured origin, or for a
 * non-HTTP resource, it is kept as is.
 */
export function publicResourceUrl(publicBaseUrl: string | undefined, resourceUrl: string): string {
  if (!publicBaseUrl || !/^https?:\/\//i.test(resourceUrl)) return resourceUrl
  const { pathname, search } = new URL(resourceUrl)
  return `${publicBaseUrl}${pathname}${search}`
}

/**
 * Finds the requirement a payment pays against by its network (CAIP-2 or v1 name). Undefined
 * when the network is not offered for this request.
 */
export function matchRequirement(
  requirements: readonly PaymentRequirement[],
  network: string,
): PaymentRequirement | undefined {
  return requirements.find((r) => r.network.network === network || r.network.v1Network === network)
}

export interface OperationRequirementsInput {
  operationId: PricedOperationId
  quality: Quality
  resourceUrl: string
  description?: string
  mimeType?: string
}

/** Requirements for a priced operation at a quality, with the x402 price from the one price table. */
export function paymentRequirementsFor(
  config: PaymentConfig,
  input: OperationRequirementsInput,
): PaymentRequirement[] {
  return buildPaymentRequirements(config, {
    amount: x402PriceFor(input.operationId, input.quality),
    resourceUrl: input.resourceUrl,
    description: input.description ?? `${input.operationId} (${input.quality})`,
    mimeType: input.mimeType,
  })
}
