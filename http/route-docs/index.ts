import type { RouteDescription } from '../route-description.ts'
import { discoveryRoutes } from './discovery.ts'
import { evidenceRoutes } from './evidence.ts'
import { mcpRoute } from './mcp.ts'
import { operatorRoutes } from './operator.ts'
import { paymentRoutes } from './payments.ts'
import { publicRoutes } from './public.ts'

/**
 * Every route the service serves outside the operation registry, described once: the public
 * discovery documents and the reference page, health, key creation, the payment and facilitator
 * routes, the operator routes and /mcp. http/openapi.test.ts compares the described routes with
 * the router, so a route added without its description fails the tests.
 */
export const serviceRoutes: readonly RouteDescription[] = [
  ...discoveryRoutes,
  ...publicRoutes,
  ...paymentRoutes,
  ...operatorRoutes,
  ...evidenceRoutes,
  mcpRoute,
]
