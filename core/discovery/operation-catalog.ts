import type { Quality } from '../context.ts'
import { formatUsd } from '../money.ts'
import type { AnyOperation } from '../operations/define.ts'
import { fillPath, pathParameters } from '../operations/route-path.ts'
import { tierView } from '../payments/pricing.ts'
import { describeOperation, type OperationDescription } from './describe-operation.ts'

/** USD prices of one payment method per quality tier, as decimal strings ("0.110000"). */
export type UsdTierPrices = Partial<Record<Quality, string>>

/** One registry operation as the discovery documents show it (agent card, llms.txt, MCP manifest). */
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

/** The discovery view of one operation's description, with prices as USD strings. */
export function catalogEntry(description: OperationDescription): CatalogEntry {
  const { prices, access } = description
  return {
    id: description.id,
    method: description.method,
    path: description.path,
    title: description.title,
    summary: description.summary,
    ...(description.description ? { description: description.description } : {}),
    price: prices
      ? {
          x402: tierView(prices.x402, formatUsd),
          account: tierView(prices.account, formatUsd),
          per_unit: prices.perUnit,
        }
      : null,
    sandbox: access.sandbox,
    ...(access.minTier ? { min_tier: access.minTier } : {}),
    example_input: description.exampleInput,
  }
}

/** The registry as catalog entries, in registry order: what every discovery document is generated from. */
export function operationCatalog(operations: readonly AnyOperation[]): CatalogEntry[] {
  return operations.map((operation) => catalogEntry(describeOperation(operation)))
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
