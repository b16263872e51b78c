import type { JsonSchema } from '../core/discovery/describe-operation.ts'
import type { HttpMethod } from '../core/operations/define.ts'

/**
 * How every HTTP route is described, registry operations (http/operation-route.ts) and the
 * service's other routes (http/service-routes/) alike; the OpenAPI document renders these
 * descriptions and nothing else (http/openapi.ts).
 */

/** The OpenAPI tag groups. */
export type RouteTag = 'Public' | 'Checks' | 'Keys' | 'Payments' | 'Operator' | 'MCP'

/**
 * Who may call a route and how it is paid:
 * - `public`: no key, no payment (never 401, 402 or 403);
 * - `key`: an API key (customer or operator);
 * - `key-or-payment`: a priced call, from a key balance or with an x402 payment;
 * - `key-and-payment`: the key and an x402 payment together (key top-ups);
 * - `public-or-key`: anyone, a key where one is sent (/mcp).
 */
export type RouteAccess = 'public' | 'key' | 'key-or-payment' | 'key-and-payment' | 'public-or-key'

/**
 * The header groups of a response: the request id (every response), the payment receipt of a paid
 * call (with the request id), the replay marker of an Idempotency-Key, the caller's rate limit.
 */
export type HeaderGroup = 'request-id' | 'payment' | 'idempotency' | 'rate-limit' | 'pagination'

export interface ParameterDescription {
  name: string
  in: 'path' | 'query' | 'header'
  required: boolean
  description?: string
  schema: JsonSchema
}

export interface ResponseDescription {
  status: number
  description: string
  /** Default: the request id only. */
  headers?: readonly HeaderGroup[]
  /** Content type -> schema of the body; absent: no body. */
  content?: Readonly<Record<string, JsonSchema>>
}

/** What only registry operations carry: their sandbox rule, minimum tier and MCP tool. */
export interface OperationExtras {
  sandbox: 'mock' | 'refuse' | 'run'
  minTier?: string
  tool: string
  /** The parts the answer needs (the charging rule); empty: none beyond the service itself. */
  essentials?: readonly { part: string; when: string; needs: string }[]
}

export interface RouteDescription {
  /** OpenAPI operationId (the MCP tool name for registry operations). */
  id: string
  /** The operations' methods, plus PUT for the operator's maintenance switch. */
  method: HttpMethod | 'PUT'
  /** `{name}` path parameters, as in the registry. */
  path: string
  tags: readonly RouteTag[]
  summary: string
  description?: string
  access: RouteAccess
  parameters?: readonly ParameterDescription[]
  body?: { required: boolean; schema: JsonSchema }
  /** The answers with a body or headers of their own (successes, and errors that are not problems). */
  responses: readonly ResponseDescription[]
  /** Statuses answered with the shared problem documents (402: the x402 challenge). */
  errors: readonly number[]
  /** USD prices by tier (quality tiers, or key tiers for a top-up); null: a free registry operation. */
  priceUsd?: Readonly<Record<string, unknown>> | null
  operation?: OperationExtras
}

/** A schema the OpenAPI document shares (components/schemas). */
export const sharedSchema = (
  name: 'Problem' | 'FacilitatorRequest' | 'VerifyResponse' | 'SettleResponse',
) => ({
  $ref: `#/components/schemas/${name}`,
})

/** A response with a JSON body. */
export const jsonResponse = (
  status: number,
  description: string,
  schema: JsonSchema,
  headers?: readonly HeaderGroup[],
): ResponseDescription => ({
  status,
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': schema },
})

/** A response with a text body of one content type. */
export const textResponse = (
  status: number,
  description: string,
  contentType: string,
): ResponseDescription => ({
  status,
  description,
  content: { [contentType]: { type: 'string' } },
})

/** A required JSON request body. */
export const jsonBody = (schema: JsonSchema) => ({ required: true, schema })
