import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar'
import type { JsonSchema, OperationDescription } from '../core/discovery/describe-operation.ts'
import { PaymentRequiredError } from '../core/errors.ts'
import { colonPath, fillPath } from '../core/operations/route-path.ts'
import { encodeBase64Json } from '../core/payments/challenge.ts'

/**
 * The x402 Bazaar discovery extension (coinbase/x402 `specs/extensions/bazaar.md`): what a
 * facilitator catalogs about a paid route, its method, input (example and JSON Schema) and
 * output, in the `extensions.bazaar` of a 402 challenge and in `/.well-known/x402.json`. Built
 * with the official `@x402/extensions` builder from the one operation description, so it cannot
 * drift from the route, the OpenAPI document or the MCP tool list. It lives with the adapters:
 * core takes no x402 package, and the extension describes the REST route.
 */

/**
 * `resource.serviceName`: the spec allows printable ASCII of at most 32 characters, so the
 * service's full name (longer) is shortened here.
 */
export const BAZAAR_SERVICE_NAME = 'Entity and Wallet Validation'

/** `resource.tags`: at most five short ASCII tags describing the service (spec: Service Metadata). */
export const BAZAAR_TAGS: readonly string[] = ['compliance', 'sanctions', 'kyb', 'leads', 'wallets']

/** The service metadata the spec puts on the challenge's `resource` object. */
export const BAZAAR_RESOURCE_METADATA = { serviceName: BAZAAR_SERVICE_NAME, tags: [...BAZAAR_TAGS] }

/** One `extensions.bazaar` value: `info`, the JSON Schema that validates it, and `routeTemplate`. */
export type BazaarExtension = {
  info: { input: Record<string, unknown>; output?: Record<string, unknown> }
  schema: JsonSchema
  routeTemplate?: string
}

/**
 * How much the extension says: `full` carries the input and output JSON Schemas (the 402 body,
 * `x402.json`); `compact` the input schema and the output example only, so the base64
 * `PAYMENT-REQUIRED` header stays within the 8 KB many proxies allow per header (output schemas
 * run to 15 KB of JSON); `minimal` the method and the input example under a schema that only
 * says "an object", for a challenge with so many networks that even `compact` would not fit.
 */
export type BazaarDetail = 'full' | 'compact' | 'minimal'

/**
 * The most a `PAYMENT-REQUIRED` header value may take: 8 KB is what nginx, AWS ALB and many
 * proxies allow per header line. A challenge whose compact extension would pass it carries the
 * minimal one instead (the full one stays in the body and `x402.json`).
 */
export const PAYMENT_REQUIRED_HEADER_BUDGET = 8 * 1024

/** The subset of an object JSON Schema naming `fields` (properties, and the required among them). */
function pick(schema: JsonSchema, fields: readonly string[]): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const required = ((schema.required as string[] | undefined) ?? []).filter((name) => fields.includes(name))
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((name) => [name, properties[name] ?? {}])),
    ...(required.length > 0 ? { required } : {}),
    ...(schema.additionalProperties === false ? { additionalProperties: false } : {}),
  }
}

function pickValues(values: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((name) => name in values).map((name) => [name, values[name]]))
}

/**
 * `extensions.bazaar` for an operation's REST route. The declaration comes from the official
 * `declareDiscoveryExtension` (query parameters for GET and DELETE, a JSON body for POST) and is
 * enriched by the official server extension with the method, the route's `routeTemplate`
 * (`/v1/reports/:report_id`) and the path parameters of `path` (the concrete request path; the
 * example input's values when absent). The output schema travels only in the `full` detail.
 */
export function bazaarExtensionOf(
  description: OperationDescription,
  options: { detail?: BazaarDetail; path?: string } = {},
): BazaarExtension {
  const { input, placement, exampleInput } = description
  // The example is the operation's whole output; a route that answers with one of its fields has none.
  const exampleOutput = description.restBody === description.output ? description.exampleOutput : undefined
  const detail = options.detail ?? 'full'
  const outputSchema = detail === 'full' ? description.restBody : undefined
  const output =
    exampleOutput && detail !== 'minimal'
      ? { example: exampleOutput, ...(outputSchema ? { schema: outputSchema } : {}) }
      : undefined
  // `minimal`: the fields' schemas are left out; "an object" still validates the example.
  const fieldsSchema = (fields: readonly string[]) =>
    detail === 'minimal' ? { type: 'object' } : pick(input, fields)
  const pathParamsSchema = placement.path.length > 0 ? fieldsSchema(placement.path) : undefined
  const declared = placement.hasBody
    ? declareDiscoveryExtension({
        bodyType: 'json',
        input: pickValues(exampleInput, placement.body),
        inputSchema: fieldsSchema(placement.body),
        ...(pathParamsSchema ? { pathParamsSchema } : {}),
        ...(output ? { output } : {}),
      })
    : description.method === 'POST'
      ? // A POST without a body (its input is all in the path) declares an empty JSON body.
        declareDiscoveryExtension({
          bodyType: 'json',
          input: {},
          inputSchema: { type: 'object', properties: {}, additionalProperties: false },
          ...(pathParamsSchema ? { pathParamsSchema } : {}),
          ...(output ? { output } : {}),
        })
      : declareDiscoveryExtension({
          input: pickValues(exampleInput, placement.query),
          inputSchema: fieldsSchema(placement.query),
          ...(pathParamsSchema ? { pathParamsSchema } : {}),
          ...(output ? { output } : {}),
        })
  const path =
    options.path ??
    fillPath(description.path, (name) => {
      const value = exampleInput[name]
      return typeof value === 'string' ? value : undefined
    })
  const enrich = bazaarResourceServerExtension.enrichDeclaration
  if (!enrich) throw new Error('@x402/extensions: the bazaar server extension has no enrichDeclaration')
  const enriched = enrich(declared.bazaar, {
    method: description.method,
    adapter: { getPath: () => path },
    routePattern: colonPath(description.path),
  } as never) as BazaarExtension
  return withOutputSchema(enriched, exampleOutput ? undefined : outputSchema)
}

/**
 * The extensions of one operation per request path, for `withBazaar`: built once per detail for
 * a route without path parameters (the same on every 402), per request otherwise.
 */
export function bazaarExtensionsFor(
  description: OperationDescription,
): (path: string) => (detail: BazaarDetail) => BazaarExtension {
  if (description.placement.path.length > 0) {
    return (path) => (detail) => bazaarExtensionOf(description, { detail, path })
  }
  const built = new Map<BazaarDetail, BazaarExtension>()
  const cached = (detail: BazaarDetail) => {
    let extension = built.get(detail)
    if (!extension) {
      extension = bazaarExtensionOf(description, { detail })
      built.set(detail, extension)
    }
    return extension
  }
  return () => cached
}

/**
 * Without an output example the official builder leaves `output` out; the output schema is still
 * worth cataloging, so `info.output` says the answer is JSON and the schema describes its example
 * slot (which stays empty, as the spec allows).
 */
function withOutputSchema(extension: BazaarExtension, outputSchema: JsonSchema | undefined): BazaarExtension {
  if (!outputSchema) return extension
  const properties = (extension.schema.properties ?? {}) as Record<string, JsonSchema>
  return {
    ...extension,
    info: { ...extension.info, output: { type: 'json' } },
    schema: {
      ...extension.schema,
      properties: {
        ...properties,
        output: {
          type: 'object',
          properties: { type: { type: 'string' }, example: outputSchema },
          required: ['type'],
        },
      },
    },
  }
}

/**
 * The x402 v1 form of the same discovery data: `accepts[].outputSchema` with the input as v1
 * clients and facilitators read it (`discoverable`, `queryParams` or `bodyType` + `bodyFields`)
 * and the output example (spec: Backwards Compatibility).
 */
export function bazaarV1OutputSchemaOf(extension: BazaarExtension): Record<string, unknown> {
  const { type, method, queryParams, bodyType, body, pathParams } = extension.info.input as Record<
    string,
    unknown
  >
  const output = extension.info.output as { example?: unknown } | undefined
  return {
    input: {
      type,
      method,
      discoverable: true,
      ...(queryParams ? { queryParams } : {}),
      ...(bodyType ? { bodyType, bodyFields: body } : {}),
      ...(pathParams ? { pathParams } : {}),
    },
    ...(output?.example ? { output: output.example } : {}),
  }
}

/**
 * A 402 challenge with the route's discovery data (`extension` renders it at a detail): the v2
 * view (the `PAYMENT-REQUIRED` header, MCP) gets the `compact` extension, or the `minimal` one
 * when `compact` would take the header past PAYMENT_REQUIRED_HEADER_BUDGET; the x402 v1 body of
 * a plain challenge the `full` one, and each of its items the v1 `outputSchema`. Both name the
 * service on `resource` (serviceName, tags). Why not the full extension in the header: x402
 * clients echo it in the PAYMENT-SIGNATURE header of the paid retry, and a 25 KB request header
 * is refused by Node (16 KB) and most proxies. A 402 that refuses a sent payment (`errorCode`)
 * carries the header's extension in its body too: the payer already has the full data, and the
 * refusal never spells out the schema of an answer it withholds.
 */
export function withBazaar(
  error: PaymentRequiredError,
  extension: (detail: BazaarDetail) => BazaarExtension,
): PaymentRequiredError {
  const header = error.paymentRequired as { resource?: object; extensions?: object; errorCode?: string }
  const body = error.body as { resource?: object; extensions?: object; accepts?: object[] }
  const headerWith = (detail: BazaarDetail) => ({
    ...header,
    resource: { ...header.resource, ...BAZAAR_RESOURCE_METADATA },
    extensions: { ...header.extensions, bazaar: extension(detail) },
  })
  const compact = headerWith('compact')
  const paymentRequired =
    encodeBase64Json(compact).length <= PAYMENT_REQUIRED_HEADER_BUDGET ? compact : headerWith('minimal')
  const bodyExtension = header.errorCode === undefined ? extension('full') : paymentRequired.extensions.bazaar
  const outputSchema = bazaarV1OutputSchemaOf(bodyExtension)
  return new PaymentRequiredError(
    {
      paymentRequired,
      body: {
        ...body,
        resource: { ...body.resource, ...BAZAAR_RESOURCE_METADATA },
        ...(body.accepts ? { accepts: body.accepts.map((item) => ({ ...item, outputSchema })) } : {}),
        extensions: { ...body.extensions, bazaar: bodyExtension },
      },
    },
    error.message,
  )
}

/**
 * `/.well-known/x402.json` with the Bazaar discovery data: the service metadata the challenges put
 * on `resource` (serviceName, tags) and, per priced operation, the `full` extension its 402 body
 * carries, so the document and the challenges cannot disagree.
 */
export function x402DocumentWithBazaar<D extends { operations: { operation: string }[] }>(
  operations: readonly OperationDescription[],
): (document: D) => D & typeof BAZAAR_RESOURCE_METADATA {
  const extensions = new Map(
    operations
      .filter((description) => description.prices !== null)
      .map((description) => [description.id, bazaarExtensionOf(description)]),
  )
  return (document) => ({
    ...document,
    ...BAZAAR_RESOURCE_METADATA,
    operations: document.operations.map((entry) => {
      const extension = extensions.get(entry.operation)
      return extension ? { ...entry, extensions: { bazaar: extension } } : entry
    }),
  })
}
