import type { OperationDescription, OperationPrices } from '../core/discovery/describe-operation.ts'
import { formatUsd } from '../core/money.ts'
import { tierView } from '../core/payments/pricing.ts'
import type { HeaderGroup, ParameterDescription, RouteDescription } from './route-description.ts'

const SUCCESS_DESCRIPTION = { 200: 'Success', 201: 'Created', 204: 'Deleted (no body)' } as const

/**
 * The Idempotency-Key header of priced POST operations (core/idempotency): a retry with the same key
 * and request gets the stored answer without a second charge.
 */
const IDEMPOTENCY_KEY_PARAMETER: ParameterDescription = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'For calls paid from an API key: a retry with the same key and the same request (operation, quality tier, input) within 24 hours gets the stored answer, unchanged, with Idempotent-Replayed: true and nothing charged. The same key with a different request is a 422; while the first call runs, a 409 with Retry-After. Scoped per API key. Ignored for x402 payments (a payment cannot be spent twice) and for free operations.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
}

/** `x-price-usd`: the USD prices per payment method and quality tier, null for a free operation. */
function priceUsd(prices: OperationPrices | null) {
  if (!prices) return null
  return {
    x402: tierView(prices.x402, formatUsd),
    account: tierView(prices.account, formatUsd),
    ...(prices.perUnit ? { per: 'unit' } : {}),
  }
}

/**
 * A registry operation's description as an HTTP route: path parameters and (GET, DELETE) query
 * parameters, or the JSON body (POST), all from the operation's one input schema. A priced
 * operation accepts the key or an x402 payment, answers 402 with the challenge and takes an
 * Idempotency-Key on POST; `X-Response-Quality` is offered only when its price has more than one
 * quality tier.
 */
export function operationRoute(operation: OperationDescription): RouteDescription {
  const { input, placement, prices, status } = operation
  const properties = (input.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = new Set((input.required as string[] | undefined) ?? [])
  const priced = prices !== null
  const idempotent = priced && operation.method === 'POST'
  const parameters: ParameterDescription[] = []
  if (prices && prices.qualities.length > 1) {
    parameters.push({
      name: 'X-Response-Quality',
      in: 'header',
      required: false,
      description: 'Quality tier (priced per tier, see x-price-usd); the tier used is in the answer',
      schema: { type: 'string', enum: prices.qualities, default: 'fresh' },
    })
  }
  if (idempotent) parameters.push(IDEMPOTENCY_KEY_PARAMETER)
  for (const name of placement.path) {
    parameters.push({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } })
  }
  for (const name of placement.query) {
    parameters.push({ name, in: 'query', required: required.has(name), schema: properties[name] ?? {} })
  }
  const bodyRequired = [...required].filter((name) => placement.body.includes(name))
  const bodySchema =
    placement.path.length === 0
      ? input
      : {
          ...input,
          properties: Object.fromEntries(placement.body.map((name) => [name, properties[name]])),
          ...(bodyRequired.length ? { required: bodyRequired } : {}),
        }
  const headers: HeaderGroup[] = [
    priced ? 'payment' : 'request-id',
    ...(idempotent ? (['idempotency'] as const) : []),
    'rate-limit',
    ...(operation.paginated ? (['pagination'] as const) : []),
  ]
  return {
    id: operation.id,
    method: operation.method,
    path: operation.path,
    tags: [priced ? 'Checks' : 'Keys'],
    summary: operation.summary,
    ...(operation.description || operation.paginated
      ? {
          description: [
            operation.description,
            operation.paginated
              ? 'REST: when more follow, the Link response header `<…?limit=n&cursor=…>; rel="next"` (RFC 8288) gives the next page; absent on the last page.'
              : undefined,
          ]
            .filter(Boolean)
            .join(' '),
        }
      : {}),
    access: priced ? 'key-or-payment' : 'key',
    parameters,
    ...(placement.hasBody ? { body: { required: true, schema: bodySchema } } : {}),
    responses: [
      {
        status,
        description: SUCCESS_DESCRIPTION[status],
        headers,
        ...(status === 204 ? {} : { content: { 'application/json': operation.restBody } }),
      },
    ],
    // 400: a body that cannot be read, or a required query parameter that is missing (spec: Errors).
    errors: [
      ...(placement.hasBody || placement.query.some((name) => required.has(name)) ? [400] : []),
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
    ],
    priceUsd: priceUsd(prices),
    operation: {
      sandbox: operation.access.sandbox,
      ...(operation.access.minTier ? { minTier: operation.access.minTier } : {}),
      tool: operation.id,
      ...(operation.essentials.length > 0 ? { essentials: operation.essentials } : {}),
    },
  }
}
