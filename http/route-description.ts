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

/** The sentence of an operator route: who may call it and what everyone else gets. */
export const OPERATOR_ONLY =
  'Needs the operator key (ADMIN_API_KEY); customer keys get 403 Insufficient role.'

/**
 * The sentence of a route that shows each key its own records: what the operator key may do
 * beyond that (`does`, e.g. "verifies every chain"), for every key or for one it names.
 */
export const operatorSeesEveryKey = (does: string) => `The operator key ${does}, or one key with key_id.`

/** What a key route takes and checks, which decides the problem documents it may answer. */
export interface ProblemTraits {
  /**
   * Who may call it: `operator` (customer keys get 403), `own-or-operator` (a customer key asking
   * for another key's records gets 403), `any-key` (every valid key; a bad key is still 401).
   */
  scope: 'operator' | 'own-or-operator' | 'any-key'
  /** A JSON body: malformed (400), too large (413), invalid (422). */
  body?: boolean
  /** Path or query parameters that are validated (422). */
  parameters?: boolean
  /** Looks up a record that may not exist (404). */
  lookup?: boolean
  /** Counted by the caller's rate limit (429). */
  rateLimited?: boolean
}

/**
 * The problem statuses of a key route, from its traits: 401 (no or bad key), 500 and 503 always,
 * the others as the route's traits say (see ProblemTraits).
 */
export function keyRouteProblems(traits: ProblemTraits): number[] {
  const statuses = new Set([401, 500, 503])
  if (traits.scope !== 'any-key') statuses.add(403)
  if (traits.body) for (const status of [400, 413, 422]) statuses.add(status)
  if (traits.parameters) statuses.add(422)
  if (traits.lookup) statuses.add(404)
  if (traits.rateLimited) statuses.add(429)
  return [...statuses].sort((a, b) => a - b)
}
