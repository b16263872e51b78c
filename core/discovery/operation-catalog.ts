import { QUALITIES, type Quality } from '../context.ts'
import { formatUsd } from '../money.ts'
import type { AnyOperation } from '../operations/define.ts'
import { toJsonSchema } from '../operations/json-schema.ts'
import { fillPath, pathParameters } from '../operations/route-path.ts'
import type { TierPrices } from '../payments/pricing.ts'

/** USD prices of one payment method per quality tier, as decimal strings ("0.110000"). */
export type UsdTierPrices = Partial<Record<Quality, string>>

/** One registry operation as the discovery documents describe it (agent card, llms.txt, MCP manifest). */
export interface CatalogEntry {
  id: string
  method: string
  path: string
  title: string
  summary: string
  description?: string
  /** null for free key routes. */
  price: { x402: UsdTierPrices; account: UsdTierPrices; per_unit: boolean } | null
  /** sandbox keys: mock data, refused, or the real (free) operation. */
  sandbox: 'mock' | 'refuse' | 'run'
  min_tier?: string
  /** A valid input for the operation (checked against its schema by the tests). */
  example_input: Record<string, unknown>
}

/**
 * Example values by field name. A new operation whose required field is not here gets a value
 * from its JSON schema (enum, type); add a line here when that value does not validate.
 */
const FIELD_EXAMPLES: Readonly<Record<string, unknown>> = {
  entity_name: 'Acme Trading B.V.',
  name: 'Acme Trading B.V.',
  country: 'NL',
  kvk_number: '68750110',
  cbe_number: '0403.170.701',
  registration_number: '68750110',
  entity_id: 'acme-nl-001',
  vat_number: 'NL003028112B01',
  domain: 'example.com',
  iban: 'NL91ABNA0417164300',
  wallet: '0x4675c7e5baafbffbca748158becba61ef3b0a263',
  wallet_address: '0x4675c7e5baafbffbca748158becba61ef3b0a263',
  agent_id: '0x4675c7e5baafbffbca748158becba61ef3b0a263',
  entity_hash: 'a'.repeat(64),
  email: 'ops@example.com',
  url: 'https://hooks.example.com/validation',
  events: ['sanctions.match.new'],
  confirm: true,
}

/** Optional fields worth showing in an example because they change what the call does. */
const SHOWN_OPTIONAL = new Set(['country', 'entity_name'])

function exampleValue(name: string, schema: Record<string, unknown> | undefined): unknown {
  if (name in FIELD_EXAMPLES) return FIELD_EXAMPLES[name]
  if (!schema) return 'example'
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  if (schema.const !== undefined) return schema.const
  switch (schema.type) {
    case 'boolean':
      return true
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1
    case 'array':
      return []
    case 'object':
      return {}
    default:
      return 'example'
  }
}

/** An input for `operation` built from its schema's required fields (plus `country` where offered). */
export function exampleInputOf(operation: AnyOperation): Record<string, unknown> {
  const schema = toJsonSchema(operation.input, 'input')
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = new Set((schema.required as string[] | undefined) ?? [])
  const example: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) {
    if (required.has(name) || SHOWN_OPTIONAL.has(name)) example[name] = exampleValue(name, property)
  }
  return example
}

function usdTiers(prices: TierPrices): UsdTierPrices {
  const out: UsdTierPrices = {}
  for (const quality of QUALITIES) {
    const micros = prices[quality]
    if (micros !== undefined) out[quality] = formatUsd(micros)
  }
  return out
}

function titleOf(operation: AnyOperation): string {
  if (operation.title) return operation.title
  const words = operation.id.replace(/_/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** The registry as catalog entries, in registry order: what every discovery document is generated from. */
export function operationCatalog(operations: readonly AnyOperation[]): CatalogEntry[] {
  return operations.map((operation) => ({
    id: operation.id,
    method: operation.http.method,
    path: operation.http.path,
    title: titleOf(operation),
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    price: operation.price
      ? {
          x402: usdTiers(operation.price.x402),
          account: usdTiers(operation.price.account),
          per_unit: operation.units !== undefined,
        }
      : null,
    sandbox: operation.access.sandbox,
    ...(operation.access.minTier ? { min_tier: operation.access.minTier } : {}),
    example_input: exampleInputOf(operation),
  }))
}

/** A price string for reading: at least two decimals, no trailing zeros past them ("0.200000" -> "0.20", "0.005000" -> "0.005"). */
export function shortUsd(value: string): string {
  return value.replace(/^(\d+\.\d\d\d*?)0+$/, '$1')
}

/** "0.11 (cached) / 0.20 (fresh) / 0.29 (enhanced)" or "0.005" for one fixed price. */
export function priceText(prices: UsdTierPrices): string {
  const entries = Object.entries(prices) as [Quality, string][]
  if (entries.length === 1) return `${shortUsd(entries[0]?.[1] ?? '')} USD`
  return `${entries.map(([quality, value]) => `${shortUsd(value)} (${quality})`).join(' / ')} USD`
}

/**
 * The curl command of an example call: path parameters filled in, the query string of a GET or
 * DELETE, the JSON body of a POST; `X-API-Key` for free routes and keyed calls.
 */
export function exampleCurl(entry: CatalogEntry, baseUrl: string): string {
  const input = { ...entry.example_input }
  const path = fillPath(entry.path, (name) => String(input[name]))
  for (const name of pathParameters(entry.path)) delete input[name]
  // Double quotes, so the shell expands the key variable.
  const headers = ['-H "X-API-Key: $SVC_API_KEY"']
  if (entry.method === 'POST') {
    const body = JSON.stringify(input).replace(/'/g, "'\\''")
    return `curl -X POST '${baseUrl}${path}' ${headers.join(' ')} -H 'Content-Type: application/json' -d '${body}'`
  }
  const query = new URLSearchParams(
    Object.entries(input).map(([key, value]) => [key, String(value)] as [string, string]),
  ).toString()
  const method = entry.method === 'GET' ? '' : `-X ${entry.method} `
  return `curl ${method}'${baseUrl}${path}${query ? `?${query}` : ''}' ${headers.join(' ')}`
}
