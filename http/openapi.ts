import { z } from 'zod'
import { formatUsd } from '../core/money.ts'
import type { AnyOperation } from '../core/operations/define.ts'

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

function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >
  return rest
}

function problemResponse(description: string) {
  return {
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  }
}

/** OpenAPI 3.1 from the same zod schemas that validate requests (CONVENTIONS 3). */
export function buildOpenApiDocument(operations: readonly AnyOperation[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const operation of operations) {
    const method = operation.http.method.toLowerCase()
    const input = jsonSchema(operation.input, 'input')
    const parameters: unknown[] = [
      { name: 'X-API-Key', in: 'header', required: false, schema: { type: 'string' } },
    ]
    if (operation.price) {
      parameters.push({
        name: 'X-Response-Quality',
        in: 'header',
        required: false,
        schema: { type: 'string', enum: ['cached', 'fresh', 'enhanced'], default: 'fresh' },
      })
    }
    let requestBody: unknown
    if (operation.http.method === 'GET') {
      const properties = (input.properties ?? {}) as Record<string, unknown>
      const required = new Set((input.required as string[] | undefined) ?? [])
      for (const [name, schema] of Object.entries(properties)) {
        parameters.push({ name, in: 'query', required: required.has(name), schema })
      }
    } else {
      requestBody = { required: true, content: { 'application/json': { schema: input } } }
    }
    const price = operation.price
    paths[operation.http.path.replace(/:(\w+)/g, '{$1}')] = {
      ...paths[operation.http.path],
      [method]: {
        operationId: operation.id,
        summary: operation.summary,
        description: operation.description,
        parameters,
        requestBody,
        'x-price-usd': price
          ? {
              x402: Object.fromEntries(Object.entries(price.x402).map(([tier, v]) => [tier, formatUsd(v)])),
              account: Object.fromEntries(
                Object.entries(price.account).map(([tier, v]) => [tier, formatUsd(v)]),
              ),
            }
          : null,
        'x-sandbox': operation.access.sandbox,
        responses: {
          200: {
            description: 'Success',
            content: { 'application/json': { schema: jsonSchema(operation.output, 'output') } },
          },
          400: problemResponse('Missing body, malformed JSON or unsupported Content-Type'),
          401: problemResponse('Missing, invalid, revoked or expired key; test key'),
          402: { description: 'x402 payment required (challenge in PAYMENT-REQUIRED header and body)' },
          403: problemResponse('Tier, sandbox or role does not allow this operation'),
          422: problemResponse('Invalid field values; detail lists {field, message}'),
          500: problemResponse('Unexpected error; detail carries a request id'),
        },
      },
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
