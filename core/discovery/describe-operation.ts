import type { Quality } from '../context.ts'
import type { AnyOperation, HttpMethod, OperationAccess } from '../operations/define.ts'
import { toJsonSchema } from '../operations/json-schema.ts'
import type { EssentialPart } from '../operations/readiness.ts'
import { pathParameters } from '../operations/route-path.ts'
import { type OperationPrice, pricedQualities, type TierPrices } from '../payments/pricing.ts'
import { exampleInputFor } from './example-input.ts'

export type JsonSchema = Record<string, unknown>

/** Where the fields of an operation's one input object travel over REST. */
export interface InputPlacement {
  /** `{name}` parameters of the path, in order. */
  path: string[]
  /** Query string fields (GET, DELETE). */
  query: string[]
  /** JSON body fields (POST with a body); empty for GET, DELETE and a POST without body. */
  body: string[]
  /** Whether a POST carries a JSON body (false for `noBody`, GET and DELETE). */
  hasBody: boolean
}

/** What a priced operation costs, as every document shows it. */
export interface OperationPrices {
  /** Per call (or per unit) with x402, per quality tier. */
  x402: TierPrices
  /** Debited from a key balance, per quality tier. */
  account: TierPrices
  /** Charged per billable unit of the input (per lead), not per call. */
  perUnit: boolean
  /** What one unit is, when the price table names it (`lead`). */
  unit?: string
  /** The quality tiers a caller can choose between, in order; one for a fixed price. */
  qualities: Quality[]
}

/** How a call behaves, for clients that plan calls (MCP tool annotations). */
export interface OperationHints {
  /** A free read: no charge, nothing changed. */
  readOnly: boolean
  /** Removes or irreversibly changes something. */
  destructive: boolean
  /** Calling twice has the effect of calling once. */
  idempotent: boolean
  /** Reaches outside services at run time. */
  openWorld: boolean
}

/**
 * The one description of an operation: what the MCP tool list, the OpenAPI document, the
 * discovery catalog (agent card, llms.txt, MCP manifest) and `/.well-known/x402.json` render.
 */
export interface OperationDescription {
  /** Operation id and MCP tool name (snake_case). */
  id: string
  /** Display name: the definition's title, else the id in words (`entity_check` -> `Entity check`). */
  title: string
  summary: string
  description?: string
  method: HttpMethod
  path: string
  /** REST success status: 200, 201 or 204 (no body). */
  status: 200 | 201 | 204
  /** JSON Schema of the input object (REST path, query and body together; MCP arguments). */
  input: JsonSchema
  /** JSON Schema of the output object (MCP structured content). */
  output: JsonSchema
  /** JSON Schema of the REST success body: the output, or its `bodyField` property. */
  restBody: JsonSchema
  /** REST links the next page in a `Link` header (the output field `nextCursorField` holds its cursor). */
  paginated: boolean
  placement: InputPlacement
  /** null for a free operation (it needs an API key and never answers 402). */
  prices: OperationPrices | null
  access: OperationAccess
  hints: OperationHints
  /** A valid input (checked against the operation's schema by the tests). */
  exampleInput: Record<string, unknown>
  /**
   * The sandbox mock's answer to `exampleInput`, when the operation has a mock: a real output
   * shape (the tests check mocks against the output schema), shown as the discovery example.
   */
  exampleOutput?: Record<string, unknown>
  /**
   * The charging rule: the parts the answer needs. When one cannot run because of the service's
   * own state (lists loading, a source not configured) the call is a 503 and charges nothing.
   */
  essentials: readonly EssentialPart[]
}

/** The definition's title, else the id in words: `entity_check` -> `Entity check`. */
function titleOf(operation: AnyOperation): string {
  if (operation.title) return operation.title
  const words = operation.id.replaceAll('_', ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

function placementOf(operation: AnyOperation, input: JsonSchema): InputPlacement {
  const fields = Object.keys((input.properties ?? {}) as JsonSchema)
  const path = pathParameters(operation.http.path)
  const rest = fields.filter((name) => !path.includes(name))
  const hasBody = operation.http.method === 'POST' && !operation.http.noBody
  return {
    path,
    query: operation.http.method === 'POST' ? [] : rest,
    body: hasBody ? rest : [],
    hasBody,
  }
}

function pricesOf(operation: AnyOperation, price: OperationPrice): OperationPrices {
  return {
    x402: price.x402,
    account: price.account,
    perUnit: operation.units !== undefined,
    ...(price.unit ? { unit: price.unit } : {}),
    qualities: pricedQualities(price),
  }
}

/** The REST success body: the output schema, or its `bodyField` property when REST answers with that field. */
function restBodyOf(operation: AnyOperation, output: JsonSchema): JsonSchema {
  const field = operation.http.bodyField
  if (!field) return output
  const property = (output.properties as Record<string, JsonSchema> | undefined)?.[field]
  if (!property) throw new Error(`operation ${operation.id}: bodyField ${field} is not an output property`)
  return property
}

/** The deterministic sandbox mock's answer to the example input; none without a mock. */
function exampleOutputOf(operation: AnyOperation, exampleInput: Record<string, unknown>) {
  if (!operation.mock) return undefined
  const parsed = operation.input.safeParse(exampleInput)
  if (!parsed.success) return undefined
  const output = operation.mock(parsed.data)
  return typeof output === 'object' && output !== null ? (output as Record<string, unknown>) : undefined
}

/**
 * Describes a registry operation once, from its definition: the schemas rendered from its zod
 * input and output, where each input field travels over REST, its prices per payment method and
 * quality tier, who may call it, and how a call behaves. A priced call is neither read-only nor
 * idempotent: it charges the caller and keeps the check in the caller's history.
 */
export function describeOperation(operation: AnyOperation): OperationDescription {
  const input = toJsonSchema(operation.input, 'input')
  const output = toJsonSchema(operation.output, 'output')
  const { method } = operation.http
  const readOnly = operation.price === null && method === 'GET'
  const exampleInput = exampleInputFor(input)
  const exampleOutput = exampleOutputOf(operation, exampleInput)
  return {
    id: operation.id,
    title: titleOf(operation),
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    method,
    path: operation.http.path,
    status: operation.http.status ?? 200,
    input,
    output,
    restBody: restBodyOf(operation, output),
    paginated: operation.http.nextCursorField !== undefined,
    placement: placementOf(operation, input),
    prices: operation.price ? pricesOf(operation, operation.price) : null,
    access: operation.access,
    hints: {
      readOnly,
      destructive: operation.destructive === true || method === 'DELETE',
      idempotent: readOnly || method === 'DELETE',
      openWorld: operation.openWorld ?? false,
    },
    exampleInput,
    ...(exampleOutput ? { exampleOutput } : {}),
    essentials: operation.essentials?.parts ?? [],
  }
}
