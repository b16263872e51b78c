import type { z } from 'zod'
import type { Tier } from '../context.ts'
import type { OperationPrice } from '../payments/pricing.ts'
import type { OperationContext, PortName } from './operation-context.ts'
import type { OperationEssentials } from './readiness.ts'

export type HttpMethod = 'GET' | 'POST' | 'DELETE'

/**
 * Where an operation lives on the REST surface. Path parameters are written `{name}`
 * (`/v1/webhooks/{webhook_id}`) and are fields of the operation's input, like the query string of
 * a GET or DELETE and the JSON body of a POST, so REST and MCP validate one and the same object.
 */
export interface OperationHttp {
  method: HttpMethod
  path: string
  /** Success status: 200 (default), 201 (created) or 204 (no body over HTTP). */
  status?: 200 | 201 | 204
  /** POST without a request body (e.g. a test delivery); its input is the path parameters. */
  noBody?: boolean
  /**
   * REST answers with this field of the output instead of the whole object, for routes whose
   * contract is a bare JSON array (`GET /v1/providers`). MCP tools keep the object, since a tool's
   * structured content is always an object.
   */
  bodyField?: string
  /**
   * With `bodyField`: the output field holding the cursor of the next page (null on the last).
   * REST puts it in a `Link: <url?cursor=…>; rel="next"` header (RFC 8288), since the body is the
   * bare array; MCP keeps it in the object.
   */
  nextCursorField?: string
  /**
   * A printable HTML form of the output: REST answers with it when the request prefers
   * `text/html` (Accept) or says `?format=html` (GET /v1/reports/{report_id}).
   */
  html?: (output: never) => string
  /**
   * Its error answers (problem documents, REST and MCP) also carry `instance`, the request path,
   * and an `errorCode` (spec: Errors: entity report errors carry instance and errorCode).
   */
  problemInstance?: boolean
}

/**
 * Who may call an operation and what a sandbox key gets.
 * - `sandbox: 'mock'`: a sandbox key gets `mock(input)` at no charge; `'refuse'`: 403; `'run'`:
 *   the real operation (free key routes such as usage and history).
 * - `minTier`: customer keys below this tier get 403 (spec: older tier rule).
 */
export interface OperationAccess {
  sandbox: 'mock' | 'refuse' | 'run'
  minTier?: Exclude<Tier, 'sandbox'>
  /**
   * The operation works on the calling key's own data (spec: watchlist routes): a call without a
   * customer key (no key, an x402 payer, the operator key) gets 403 "Tenant context required".
   */
  tenant?: boolean
}

export interface OperationDefinition<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  P extends PortName = PortName,
> {
  /** MCP tool name (snake_case). */
  id: string
  http: OperationHttp
  /** Short display name (MCP tool title); default: the id in words (`entity_check` -> `Entity check`). */
  title?: string
  summary: string
  description?: string
  input: I
  output: O
  /** null: a free operation; it still needs an API key and never answers 402. */
  price: OperationPrice | null
  /** Billable units of one call (leads per lead); the price is per unit. Default 1. */
  units?: (input: z.infer<I>) => number
  access: OperationAccess
  /**
   * The service ports the operation uses (`[]`: none). Its context holds these and no other, so
   * the compiler refuses a port the operation did not declare.
   */
  ports: readonly P[]
  /**
   * The call reaches outside services at run time (registers, VIES, DNS, RDAP, TLS): results
   * depend on the world, not only on stored data. MCP `openWorldHint`. Default false.
   */
  openWorld?: boolean
  /** The call removes or irreversibly changes something (revoking a key). MCP `destructiveHint`. */
  destructive?: boolean
  /**
   * The parts this operation sells that must be able to run for it to be charged (the charging
   * rule, core/operations/readiness.ts): checked after validation and before any charge; a part
   * the service's own state keeps from running makes the call a 503 that charges nothing.
   * Required for every priced operation.
   */
  essentials?: OperationEssentials<z.infer<I>, P>
  /** Deterministic mock for sandbox keys; required when access.sandbox is 'mock'. */
  mock?: (input: z.infer<I>) => z.infer<O>
  run: (input: z.infer<I>, ctx: OperationContext<P>) => Promise<z.infer<O>>
}

export type AnyOperation = OperationDefinition<z.ZodType, z.ZodType, PortName>

/** Declares an operation once; HTTP routes, MCP tools and the OpenAPI document are generated from it. */
export function defineOperation<I extends z.ZodType, O extends z.ZodType, P extends PortName>(
  definition: OperationDefinition<I, O, P>,
): OperationDefinition<I, O, P> {
  const { id, http } = definition
  if (definition.access.sandbox === 'mock' && !definition.mock) {
    throw new Error(`operation ${id}: sandbox 'mock' needs a mock()`)
  }
  if (http.noBody && http.method !== 'POST') throw new Error(`operation ${id}: noBody is for POST`)
  if (definition.units && !definition.price) throw new Error(`operation ${id}: units need a price`)
  return definition
}
