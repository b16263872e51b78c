import { describeOperation } from '../core/discovery/describe-operation.ts'
import type { AnyOperation } from '../core/operations/define.ts'
import {
  components,
  errorResponses,
  idempotentSuccessHeaders,
  paidSuccessHeaders,
  rateLimitSuccessHeaders,
  requestIdHeader,
} from './openapi-components.ts'
import { operationRoute } from './operation-route.ts'
import type { HeaderGroup, ResponseDescription, RouteAccess, RouteDescription } from './route-description.ts'
import { serviceRoutes } from './route-docs/index.ts'

const TAGS = [
  { name: 'Public', description: 'No key, no payment; never 401, 402 or 403' },
  { name: 'Checks', description: 'Priced operations: paid per call with x402 or from a key balance' },
  { name: 'Keys', description: 'Key provisioning, usage and free key operations' },
  { name: 'Payments', description: 'x402 discovery, facilitator routes and key top-ups' },
  { name: 'Operator', description: 'The operator key only (ADMIN_API_KEY)' },
  { name: 'MCP', description: 'The same operations as MCP tools (Streamable HTTP)' },
]

/** The security requirements of each kind of access (the schemes are in openapi-components.ts). */
const SECURITY: Readonly<Record<RouteAccess, unknown[]>> = {
  public: [],
  key: [{ apiKey: [] }],
  'key-or-payment': [{ apiKey: [] }, { x402Payment: [] }, { x402PaymentV1: [] }],
  'key-and-payment': [
    { apiKey: [], x402Payment: [] },
    { apiKey: [], x402PaymentV1: [] },
  ],
  'public-or-key': [{}, { apiKey: [] }],
}

const HEADERS: Readonly<Record<HeaderGroup, Record<string, unknown>>> = {
  'request-id': requestIdHeader,
  payment: paidSuccessHeaders,
  idempotency: idempotentSuccessHeaders,
  'rate-limit': rateLimitSuccessHeaders,
  pagination: {
    Link: {
      description: 'The next page, `<path?limit=n&cursor=…>; rel="next"` (RFC 8288); absent on the last page',
      schema: { type: 'string' },
    },
  },
}

function openApiResponse(response: ResponseDescription) {
  const headers = Object.assign({}, ...(response.headers ?? ['request-id']).map((group) => HEADERS[group]))
  const content = response.content
    ? Object.fromEntries(Object.entries(response.content).map(([type, schema]) => [type, { schema }]))
    : undefined
  return { description: response.description, headers, ...(content ? { content } : {}) }
}

/** One route description as an OpenAPI operation: the one renderer of every route. */
function openApiOperation(route: RouteDescription) {
  const { operation } = route
  return {
    operationId: route.id,
    tags: [...route.tags],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: SECURITY[route.access],
    ...(route.parameters?.length ? { parameters: route.parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.body.required,
            content: { 'application/json': { schema: route.body.schema } },
          },
        }
      : {}),
    ...(route.priceUsd === undefined ? {} : { 'x-price-usd': route.priceUsd }),
    ...(operation
      ? {
          'x-sandbox': operation.sandbox,
          ...(operation.minTier ? { 'x-min-tier': operation.minTier } : {}),
          'x-mcp-tool': operation.tool,
          // The charging rule: an essential part the service's own state keeps from running makes
          // the call a 503 that charges nothing (errorCode service_not_ready / service_not_configured).
          ...(operation.essentials ? { 'x-essential-parts': operation.essentials } : {}),
        }
      : {}),
    responses: {
      ...Object.fromEntries(route.responses.map((response) => [response.status, openApiResponse(response)])),
      ...errorResponses(route.errors),
    },
  }
}

/**
 * OpenAPI 3.1 of every route the service serves, rendered from route descriptions: the registry
 * operations described by describeOperation (from the same zod schemas that validate requests,
 * CONVENTIONS 3) and the public, key, operator, payment and MCP routes (http/route-docs/).
 */
export function buildOpenApiDocument(operations: readonly AnyOperation[], version: string) {
  const routes = [
    ...serviceRoutes,
    ...operations.map((operation) => operationRoute(describeOperation(operation))),
  ]
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: openApiOperation(route) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Entity, Lead and Wallet Validation Service',
      version,
      description:
        'Validates companies, sales leads and AI agent wallets. Pay per call with x402 or from a prepaid API key balance.',
    },
    servers: [{ url: '/' }],
    tags: TAGS,
    components,
    paths,
  }
}
