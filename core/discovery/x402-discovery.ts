import type { AnyOperation } from '../operations/define.ts'
import { pathPattern } from '../operations/route-path.ts'
import type { PaymentConfig } from '../payments/networks.ts'
import {
  buildX402Discovery,
  type DiscoveryRoute,
  KEY_UPGRADE_OPERATION_ID,
  KEY_UPGRADE_PRICES,
  type OperationPrice,
} from '../payments/pricing.ts'
import { describeOperation, type OperationDescription, type OperationPrices } from './describe-operation.ts'

/** The path of the key top-up route (a payment route, not a registry operation). */
export const KEY_UPGRADE_ROUTE: DiscoveryRoute = { method: 'POST', path: '/v1/keys/upgrade/{tier}' }

type PricedDescription = OperationDescription & { prices: OperationPrices }

/** The descriptions of the priced operations, in registry order. */
function pricedDescriptions(operations: readonly AnyOperation[]): PricedDescription[] {
  return operations
    .map(describeOperation)
    .filter((description): description is PricedDescription => description.prices !== null)
}

/**
 * The public `/.well-known/x402.json` of a registry: each priced operation's route and prices,
 * plus the key top-ups, so the document cannot drift from what 402 challenges ask. The operations
 * are described once; the document is built per payment config and public URL.
 */
export function x402DiscoveryOf(operations: readonly AnyOperation[]) {
  const routes: Record<string, DiscoveryRoute> = { [KEY_UPGRADE_OPERATION_ID]: KEY_UPGRADE_ROUTE }
  const prices: Record<string, OperationPrice> = {}
  for (const { id, method, path, prices: price } of pricedDescriptions(operations)) {
    routes[id] = { method, path }
    prices[id] = { x402: price.x402, account: price.account, ...(price.unit ? { unit: price.unit } : {}) }
  }
  return (config: PaymentConfig, baseUrl: string) => buildX402Discovery({ config, baseUrl, routes, prices })
}

/** Whether a payment requirement is one this service issues: its own resource at one of its prices. */
export type IssuedRequirementCheck = (resourceUrl: string, amount: bigint) => boolean

/**
 * The requirements `/x402/settle` and `/x402/verify` accept: a resource on this
 * service's public origin whose path is a priced route, at an x402 price that route charges at
 * some quality (a whole number of units for per-unit operations), or a key top-up at its price.
 * Anything else (a client-chosen 1-micro amount, another origin) is refused before any
 * settlement, so nobody can make the operator pay gas for payments the service never asked for.
 */
export function issuedRequirementCheck(
  operations: readonly AnyOperation[],
  publicBaseUrl: string,
  maxUnits = 1_000,
): IssuedRequirementCheck {
  const base = new URL(publicBaseUrl)
  const origin = base.origin
  // A PUBLIC_BASE_URL with a path (https://host/api) prefixes every resource path.
  const basePath = base.pathname.replace(/\/+$/, '')
  const routes = pricedDescriptions(operations).map(({ path, prices }) => ({
    pattern: pathPattern(path),
    prices: Object.values(prices.x402) as bigint[],
    perUnit: prices.perUnit,
  }))
  routes.push({
    pattern: pathPattern(KEY_UPGRADE_ROUTE.path),
    prices: Object.values(KEY_UPGRADE_PRICES),
    perUnit: false,
  })
  return (resourceUrl, amount) => {
    let url: URL
    try {
      url = new URL(resourceUrl)
    } catch {
      return false
    }
    if (url.origin !== origin || !url.pathname.startsWith(`${basePath}/`)) return false
    const path = url.pathname.slice(basePath.length)
    const route = routes.find((candidate) => candidate.pattern.test(path))
    if (!route) return false
    return route.prices.some((price) =>
      route.perUnit
        ? amount % price === 0n && amount / price >= 1n && amount / price <= BigInt(maxUnits)
        : amount === price,
    )
  }
}
