import { formatUsd } from '../money.ts'
import { KEY_UPGRADE_PRICES, UPGRADE_TIERS } from '../payments/pricing.ts'
import type { CatalogEntry } from './operation-catalog.ts'
import { exampleCurl, priceText } from './operation-catalog.ts'
import { SERVICE_DESCRIPTION, type ServiceFacts } from './service-facts.ts'

function priceLine(entry: CatalogEntry): string {
  if (!entry.price) return 'Free (API key required)'
  const unit = entry.price.per_unit ? ' per unit' : ''
  return `${priceText(entry.price.x402)}${unit} per call with x402; ${priceText(entry.price.account)}${unit} from a key balance`
}

/** Swagger UI's deep link (`#/{tag}/{operationId}`); registry operations are tagged Checks (priced) or Keys (free). */
function docsLink(entry: CatalogEntry, base: string): string {
  return `${base}/docs#/${entry.price ? 'Checks' : 'Keys'}/${entry.id}`
}

/** How to call and pay, naming the operations a sandbox key gets mock answers from. */
function howToPay(catalog: readonly CatalogEntry[]): string {
  const mocked = catalog.filter((entry) => entry.sandbox === 'mock').map((entry) => `\`${entry.id}\``)
  const mockList =
    mocked.length < 2 ? mocked.join('') : `${mocked.slice(0, -1).join(', ')} and ${mocked.at(-1)}`
  return [
    'Three ways to call: (1) an API key in `X-API-Key` (prepaid balance, debited at the account price);',
    '(2) x402: call a paid route without credentials, read the 402 challenge (base64 JSON in the PAYMENT-REQUIRED header and in the body),',
    'pay in USDC on Base or Solana and retry with PAYMENT-SIGNATURE or X-PAYMENT;',
    `(3) a free sandbox key (\`POST /v1/keys/create\` with \`{"email": ..., "tier": "sandbox"}\`) for mock answers of ${mockList}.`,
    '`X-Response-Quality: cached|fresh|enhanced` picks the tier where a route has several prices.',
  ].join(' ')
}

/**
 * `/llms.txt` in the llmstxt.org format: an H1 with the name, a blockquote summary, details, then
 * H2 sections of link lists. Every registry operation is listed with its price and an example
 * call, generated from the registry so the file cannot drift from the API.
 */
export function buildLlmsTxt(catalog: readonly CatalogEntry[], facts: ServiceFacts): string {
  const base = facts.baseUrl
  const out: string[] = [`# ${facts.name}`, '', `> ${SERVICE_DESCRIPTION}`, '', howToPay(catalog), '']
  out.push(
    `Base URL: ${base}. Version ${facts.version}. Errors are RFC 7807 problem documents; 422 lists \`{field, message}\`.`,
    '',
  )
  const paid = catalog.filter((entry) => entry.price)
  const free = catalog.filter((entry) => !entry.price)
  const item = (entry: CatalogEntry) =>
    `- [${entry.id}: ${entry.method} ${entry.path}](${docsLink(entry, base)}): ${entry.summary}. ${priceLine(entry)}. Example: \`${exampleCurl(entry, base)}\``
  out.push('## Paid operations', '', ...paid.map(item), '')
  out.push('## Free key operations', '', ...free.map(item), '')
  const upgrades = UPGRADE_TIERS.map((tier) => `${tier} ${formatUsd(KEY_UPGRADE_PRICES[tier])} USD`).join(
    ', ',
  )
  out.push(
    '## Keys and badge',
    '',
    `- [POST /v1/keys/create](${base}/docs): a sandbox key (mock answers, free) or a free live key (prepaid balance starting at 0); body \`{"email": ..., "tier": "sandbox"|"free"}\``,
    `- [POST /v1/keys/upgrade/{tier}](${base}/docs): buy prepaid balance for the calling key with x402 and raise its tier (${upgrades}), credited in full once settled; needs the key and the payment`,
    `- [GET /v1/badge/{entity_id}](${base}/docs): entity badge (SVG), trust level and date of the latest report`,
    '',
  )
  out.push(
    '## Discovery',
    '',
    `- [OpenAPI 3.1](${base}/openapi.json): every route with schemas, prices (x-price-usd) and errors`,
    `- [API reference](${base}/docs): interactive documentation`,
    `- [x402 discovery](${base}/.well-known/x402.json): networks, payTo addresses and prices per quality tier`,
    `- [MCP connection](${base}/.well-known/mcp.json): Streamable HTTP at ${base}/mcp, stdio command, tools`,
    `- [A2A agent card](${base}/.well-known/agent.json): skills with prices and payment methods`,
    `- [Self-verify](${base}/v1/self-verify): version, commit, list dates, chains and payTo addresses`,
    '',
    '## Optional',
    '',
    `- [Full text](${base}/llms-full.txt): every operation with its description, input example and MCP call`,
    `- [Scoring methodology](${base}/v1/methodology): how scores and verdicts are computed`,
    `- [Terms](${base}/v1/legal/terms) and [privacy](${base}/v1/legal/privacy)`,
    `- [Security contact](${base}/.well-known/security.txt)`,
    '',
  )
  return out.join('\n')
}

/**
 * `/llms-full.txt`: the same header, then one section per operation with its description, prices
 * per quality tier, an example input, the curl call and the MCP `tools/call` request.
 */
export function buildLlmsFullTxt(catalog: readonly CatalogEntry[], facts: ServiceFacts): string {
  const base = facts.baseUrl
  const out: string[] = [`# ${facts.name}`, '', `> ${SERVICE_DESCRIPTION}`, '', howToPay(catalog), '']
  out.push(
    `MCP: every operation below is also a tool of the MCP server at ${base}/mcp (Streamable HTTP, header \`X-API-Key\`); without a key a paid tool answers with the x402 challenge and takes the payment in \`_meta["x402/payment"]\`.`,
    '',
  )
  for (const entry of catalog) {
    out.push(`## ${entry.title} (\`${entry.id}\`)`, '')
    out.push(`\`${entry.method} ${entry.path}\`: ${entry.summary}.`, '')
    if (entry.description) out.push(entry.description, '')
    out.push(`- Price: ${priceLine(entry)}`)
    out.push(
      `- Sandbox keys: ${entry.sandbox === 'mock' ? 'deterministic mock data, free' : entry.sandbox === 'refuse' ? 'refused (403)' : 'allowed'}`,
    )
    if (entry.min_tier) out.push(`- Needs tier ${entry.min_tier} or higher`)
    out.push(`- Reference: ${docsLink(entry, base)}`, '')
    out.push('Example input:', '', '```json', JSON.stringify(entry.example_input, null, 2), '```', '')
    out.push('Example call:', '', '```sh', exampleCurl(entry, base), '```', '')
    out.push(
      'MCP:',
      '',
      '```json',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: entry.id, arguments: entry.example_input },
      }),
      '```',
      '',
    )
  }
  return out.join('\n')
}
