import {
  describeOperation,
  type OperationDescription,
  type OperationPrices,
} from '../core/discovery/describe-operation.ts'
import { formatUsd } from '../core/money.ts'
import type { AnyOperation } from '../core/operations/define.ts'
import { tierView } from '../core/payments/pricing.ts'
import {
  components,
  errorResponses,
  idempotentSuccessHeaders,
  paidSuccessHeaders,
  rateLimitSuccessHeaders,
  requestIdHeader,
} from './openapi-components.ts'
import { serviceRoutePaths } from './openapi-routes.ts'

const SUCCESS_DESCRIPTION = { 200: 'Success', 201: 'Created', 204: 'Deleted (no body)' } as const

/** `x-price-usd`: the USD prices per payment method and quality tier, null for a free operation. */
function priceExtension(prices: OperationPrices | null) {
  if (!prices) return null
  return {
    x402: tierView(prices.x402, formatUsd),
    account: tierView(prices.account, formatUsd),
    ...(prices.perUnit ? { per: 'unit' } : {}),
  }
}

/**
 * The Idempotency-Key header of priced POST operations (core/idempotency): a retry with the same key
 * and request gets the stored answer without a second charge.
 */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'For calls paid from an API key: a retry with the same key and the same request (operation, quality tier, input) within 24 hours gets the stored answer, unchanged, with Idempotent-Replayed: true and nothing charged. The same key with a different request is a 422; while the first call runs, a 409 with Retry-After. Scoped per API key. Ignored for x402 payments (a payment cannot be spent twice) and for free operations.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
}

/**
 * One registry operation as an OpenAPI operation, from its one description: path parameters and
 * (GET, DELETE) query parameters, or the JSON body (POST), all from the operation's input schema.
 * A priced operation accepts the key or an x402 payment and documents the 402 challenge;
 * `X-Response-Quality` is offered only when its price has more than one quality tier.
 */
function openApiOperation(operation: OperationDescription) {
  const { input, placement, prices } = operation
  const properties = (input.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = new Set((input.required as string[] | undefined) ?? [])
  const parameters: unknown[] = []
  if (prices && prices.qualities.length > 1) {
    parameters.push({
      name: 'X-Response-Quality',
      in: 'header',
      required: false,
      description: 'Quality tier (priced per tier, see x-price-usd); the tier used is in the answer',
      schema: { type: 'string', enum: prices.qualities, default: 'fresh' },
    })
  }
  const priced = prices !== null
  const idempotent = priced && operation.method === 'POST'
  if (idempotent) parameters.push(IDEMPOTENCY_KEY_PARAMETER)
  for (const name of placement.path) {
    parameters.push({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } })
  }
  for (const name of placement.query) {
    parameters.push({ name, in: 'query', required: required.has(name), schema: properties[name] })
  }
  let requestBody: unknown
  if (placement.hasBody) {
    const bodyRequired = [...required].filter((name) => placement.body.includes(name))
    const schema =
      placement.path.length === 0
        ? input
        : {
            ...input,
            properties: Object.fromEntries(placement.body.map((name) => [name, properties[name]])),
            ...(bodyRequired.length ? { required: bodyRequired } : {}),
          }
    requestBody = { required: true, content: { 'application/json': { schema } } }
  }
  const { status } = operation
  const headers = {
    ...(priced ? paidSuccessHeaders : requestIdHeader),
    ...(idempotent ? idempotentSuccessHeaders : {}),
    ...rateLimitSuccessHeaders,
  }
  const errors = [
    ...(placement.hasBody ? [400] : []),
    401,
    ...(priced ? [402] : []),
    403,
    ...(placement.path.length > 0 ? [404] : []),
    ...(idempotent ? [409] : []),
    ...(placement.hasBody ? [413] : []),
    422,
    429,
    500,
    503,
  ]
  return {
    operationId: operation.id,
    tags: [priced ? 'Checks' : 'Keys'],
    summary: operation.summary,
    description: operation.description,
    ...(parameters.length > 0 ? { parameters } : {}),
    requestBody,
    security: priced ? [{ apiKey: [] }, { x402Payment: [] }, { x402PaymentV1: [] }] : [{ apiKey: [] }],
    'x-price-usd': priceExtension(prices),
    'x-sandbox': operation.access.sandbox,
    ...(operation.access.minTier ? { 'x-min-tier': operation.access.minTier } : {}),
    'x-mcp-tool': operation.id,
    responses: {
      [status]:
        status === 204
          ? { description: SUCCESS_DESCRIPTION[204], headers }
          : {
              description: SUCCESS_DESCRIPTION[status],
              headers,
              content: { 'application/json': { schema: operation.restBody } },
            },
      ...errorResponses(errors),
    },
  }
}

const TAGS = [
  { name: 'Public', description: 'No key, no payment; never 401, 402 or 403' },
  { name: 'Checks', description: 'Priced operations: paid per call with x402 or from a key balance' },
  { name: 'Keys', description: 'Key provisioning, usage and free key operations' },
  { name: 'Payments', description: 'x402 discovery, facilitator routes and key top-ups' },
  { name: 'Operator', description: 'The operator key only (ADMIN_API_KEY)' },
  { name: 'MCP', description: 'The same operations as MCP tools (Streamable HTTP)' },
]

/**
 * OpenAPI 3.1 of every route the service serves: the registry operations, from the same zod
 * schemas that validate requests (CONVENTIONS 3), and the public, key, operator, payment and MCP
 * routes (http/openapi-routes.ts).
 */
export function buildOpenApiDocument(operations: readonly AnyOperation[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const [path, methods] of Object.entries(serviceRoutePaths)) paths[path] = { ...methods }
  for (const operation of operations.map(describeOperation)) {
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method.toLowerCase()]: openApiOperation(operation),
    }
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
