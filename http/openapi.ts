import { formatUsd } from '../core/money.ts'
import { type AnyOperation, pathParameters } from '../core/operations/define.ts'
import { toJsonSchema } from '../core/operations/json-schema.ts'

const problemSchema = {
  type: 'object',
  description: 'RFC 7807 problem details; 422 detail is an array of {field, message}',
  properties: {
    type: { type: 'string', const: 'about:blank' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: {
      oneOf: [
        { type: 'string' },
        {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, message: { type: 'string' } },
            required: ['field', 'message'],
          },
        },
      ],
    },
  },
  required: ['type', 'title', 'status', 'detail'],
}

function problemResponse(description: string) {
  return {
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  }
}

const SUCCESS_DESCRIPTION = { 200: 'Success', 201: 'Created', 204: 'Deleted (no body)' } as const

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

/**
 * One operation as an OpenAPI operation: path parameters and (GET, DELETE) query parameters, or
 * the JSON body (POST), all taken from the operation's one input schema.
 */
function openApiOperation(operation: AnyOperation) {
  const input = toJsonSchema(operation.input, 'input')
  const properties = (input.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = new Set((input.required as string[] | undefined) ?? [])
  const inPath = new Set(pathParameters(operation.http.path))
  const parameters: unknown[] = [
    {
      name: 'X-API-Key',
      in: 'header',
      required: operation.price === null,
      schema: { type: 'string' },
      description: operation.price === null ? 'Required: this operation is free but needs a key' : undefined,
    },
  ]
  if (operation.price) {
    parameters.push({
      name: 'X-Response-Quality',
      in: 'header',
      required: false,
      schema: { type: 'string', enum: ['cached', 'fresh', 'enhanced'], default: 'fresh' },
    })
  }
  for (const name of inPath) {
    parameters.push({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } })
  }
  let requestBody: unknown
  if (operation.http.method !== 'POST') {
    for (const [name, schema] of Object.entries(properties)) {
      if (!inPath.has(name)) parameters.push({ name, in: 'query', required: required.has(name), schema })
    }
  } else if (!operation.http.noBody) {
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
  const success = operation.http.status ?? 200
  const responses: Record<string, unknown> = {
    [success]:
      success === 204
        ? { description: SUCCESS_DESCRIPTION[204] }
        : {
            description: SUCCESS_DESCRIPTION[success],
            content: { 'application/json': { schema: toJsonSchema(operation.output, 'output') } },
          },
    ...(operation.http.method === 'POST'
      ? { 400: problemResponse('Missing body, malformed JSON or unsupported Content-Type') }
      : {}),
    401: problemResponse('Missing, invalid, revoked or expired key; test key'),
    ...(operation.price
      ? { 402: { description: 'x402 payment required (challenge in PAYMENT-REQUIRED header and body)' } }
      : {}),
    403: problemResponse('Tier, sandbox or role does not allow this operation'),
    ...(inPath.size > 0 ? { 404: problemResponse('Unknown id, or one that belongs to another key') } : {}),
    422: problemResponse('Invalid field values; detail lists {field, message}'),
    500: problemResponse('Unexpected error; detail carries a request id'),
    503: problemResponse('A source this operation depends on is unavailable (nothing charged)'),
  }
  return {
    operationId: operation.id,
    summary: operation.summary,
    description: operation.description,
    parameters,
    requestBody,
    security: operation.price === null ? [{ apiKey: [] }] : [{ apiKey: [] }, {}],
    'x-price-usd': priceExtension(operation),
    'x-sandbox': operation.access.sandbox,
    ...(operation.access.minTier ? { 'x-min-tier': operation.access.minTier } : {}),
    'x-mcp-tool': operation.id,
    responses,
  }
}

/** OpenAPI 3.1 from the same zod schemas that validate requests (CONVENTIONS 3). */
export function buildOpenApiDocument(operations: readonly AnyOperation[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {}
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
    components: {
      schemas: { Problem: problemSchema },
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    },
    paths,
  }
}
