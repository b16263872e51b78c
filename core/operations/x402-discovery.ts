import type { PaymentConfig } from '../payments/networks.ts'
import type { DiscoveryRoute } from '../payments/pricing.ts'
import { buildX402Discovery, KEY_UPGRADE_OPERATION_ID, type OperationPrice } from '../payments/pricing.ts'
import type { AnyOperation } from './define.ts'

/** The path of the key top-up route (a payment route, not a registry operation). */
export const KEY_UPGRADE_ROUTE: DiscoveryRoute = { method: 'POST', path: '/v1/keys/upgrade/{tier}' }

/**
 * The public `/.well-known/x402.json` of a registry: each priced operation's route and prices,
 * plus the key top-ups, so the document cannot drift from what 402 challenges ask.
 */
export function x402DiscoveryOf(operations: readonly AnyOperation[], config: PaymentConfig, baseUrl: string) {
  const routes: Record<string, DiscoveryRoute> = { [KEY_UPGRADE_OPERATION_ID]: KEY_UPGRADE_ROUTE }
  const prices: Record<string, OperationPrice> = {}
  for (const operation of operations) {
    if (!operation.price) continue
    routes[operation.id] = { method: operation.http.method, path: operation.http.path }
    prices[operation.id] = operation.price
  }
  return buildX402Discovery({ config, baseUrl, routes, prices })
}
