import { formatUsd } from '../core/money.ts'
import { type AnyOperation, pathParameters } from '../core/operations/define.ts'
import { toJsonSchema } from '../core/operations/json-schema.ts'
import type { TierPrices } from '../core/payments/pricing.ts'
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

const QUALITY_ORDER = ['cached', 'fresh', 'enhanced'] as const

/** The quality tiers an operation prices (x402 or account), in order; fixed prices have one. */
function qualityTiers(operation: AnyOperation): string[] {
  const { price } = operation
  if (!price) return []
  const priced = (tiers: TierPrices) => QUALITY_ORDER.filter((quality) => tiers[quality] !== undefined)
  const tiers = new Set([...priced(price.x402), ...priced(price.account)])
  return QUALITY_ORDER.filter((quality) => tiers.has(quality))
}

function priceExtension(operation: AnyOperation) {
  const { price } = operation
  if (!price) return null
  const usdOf = (tiers: object) =>
    Object.fromEntries(Object.entries(tiers).map(([tier, micros]) => [tier, formatUsd(micros as bigint)]))
  return {
    x402: usdOf(price.x402),
    account: usdOf(price.account),
    ...(operation.units ? { per: 'unit' } : {}),
  }
}

/** The success body: the output schema, or its `bodyField` property when REST answers with that field. */
function successSchema(operation: AnyOperation): Record<string, unknown> {
  const schema = toJsonSchema(operation.output, 'output')
  const field = operation.http.bodyField
  if (!field) return schema
  const property = (schema.properties as Record<string, Record<string, unknown>> | undefined)?.[field]
  if (!property) throw new Error(`operation ${operation.id}: bodyField ${field} is not an output property`)
  return property
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
 * One registry operation as an OpenAPI operation: path parameters and (GET, DELETE) query
 * parameters, or the JSON body (POST), all from the operation's one input schema. A priced
 * operation accepts the key or an x402 payment and documents the 402 challenge;
 * `X-Response-Quality` is offered only when its price has more than one quality tier.
 */
function openApiOperation(operation: AnyOperation) {
  const input = toJsonSchema(operation.input, 'input')
  const properties = (input.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = new Set((input.required as string[] | undefined) ?? [])
  const inPath = new Set(pathParameters(operation.http.path))
  const parameters: unknown[] = []
  const tiers = qualityTiers(operation)
  if (tiers.length > 1) {
    parameters.push({
      name: 'X-Response-Quality',
      in: 'header',
      required: false,
      description: 'Quality tier (priced per tier, see x-price-usd); the tier used is in the answer',
      schema: { type: 'string', enum: tiers, default: 'fresh' },
    })
  }
  const idempotent = operation.price !== null && operation.http.method === 'POST'
  if (idempotent) parameters.push(IDEMPOTENCY_KEY_PARAMETER)
  for (const name of inPath) {
    parameters.push({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } })
  }
  let requestBody: unknown
  const hasBody = operation.http.method === 'POST' && !operation.http.noBody
  if (operation.http.method !== 'POST') {
    for (const [name, schema] of Object.entries(properties)) {
      if (!inPath.has(name)) parameters.push({ name, in: 'query', required: required.has(name), schema })
    }
  } else if (hasBody) {
    const bodyProperties = Object.fromEntries(
      Object.entries(properties).filter(([name]) => !inPath.has(name)),
    )
    const bodyRequired = [...required].filter((name) => !inPath.has(name))
    const schema =
      inPath.size === 0
        ? input
        : { ...input, properties: bodyProperties, ...(bodyRequired.length ? { required: bodyRequired } : {}) }
    requestBody = { required: true, content: { 'application/json': { schema } } }
  }
  const priced = operation.price !== null
  const status = operation.http.status ?? 200
  const headers = {
    ...(priced ? paidSuccessHeaders : requestIdHeader),
    ...(idempotent ? idempotentSuccessHeaders : {}),
    ...rateLimitSuccessHeaders,
  }
  // 400: a body that cannot be read, or a required query parameter that is missing (spec: Errors).
  const requiredQuery = [...required].some((name) => !inPath.has(name))
  const errors = [
    ...(hasBody || requiredQuery ? [400] : []),
    401,
    ...(priced ? [402] : []),
    403,
    ...(inPath.size > 0 ? [404] : []),
    ...(idempotent ? [409] : []),
    ...(hasBody ? [413] : []),
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
    'x-price-usd': priceExtension(operation),
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
              content: { 'application/json': { schema: successSchema(operation) } },
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
  for (const operation of operations) {
    paths[operation.http.path] = {
      ...paths[operation.http.path],
      [operation.http.method.toLowerCase()]: openApiOperation(operation),
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
