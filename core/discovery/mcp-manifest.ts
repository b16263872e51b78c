import type { CatalogEntry } from './operation-catalog.ts'
import { priceText } from './operation-catalog.ts'
import { SERVICE_DESCRIPTION, type ServiceFacts } from './service-facts.ts'

/** The MCP protocol revision the Streamable HTTP endpoint speaks. */
export const MCP_PROTOCOL_VERSION = '2025-06-18'

/**
 * `/.well-known/mcp.json` (spec: Public routes): how to connect an MCP client. There is no settled
 * standard for this file yet, so it carries what a client needs, in the shapes clients already
 * read: the Streamable HTTP URL and its key header, the stdio command, a ready `mcpServers` block
 * (the format of Claude Desktop, Cursor and VS Code config files), every tool with its price, and
 * the prompts (prompts/list) with their arguments.
 */
/** An MCP prompt as prompts/list gives it (the MCP adapter owns the prompts; this only lists them). */
export interface McpPromptSummary {
  name: string
  title?: string
  description?: string
  arguments?: { name: string; description?: string; required?: boolean }[]
}

export function buildMcpManifest(
  catalog: readonly CatalogEntry[],
  facts: ServiceFacts,
  prompts: readonly McpPromptSummary[] = [],
) {
  const url = `${facts.baseUrl}/mcp`
  return {
    name: 'validation-service',
    title: facts.name,
    version: facts.version,
    description: SERVICE_DESCRIPTION,
    protocolVersion: MCP_PROTOCOL_VERSION,
    transports: [
      {
        type: 'streamable-http',
        url,
        stateless: true,
        methods: ['POST'],
        headers: { 'X-API-Key': '<your API key; omit to pay per call with x402>' },
      },
      {
        type: 'stdio',
        command: 'npx',
        args: ['--no-install', 'validation-mcp'],
        env: { SVC_API_KEY: '<your API key>', DATA_DIR: './data-mcp' },
        note: 'Runs the service locally from a checkout of this project (npm install first).',
      },
    ],
    authentication: {
      header: 'X-API-Key',
      keys: `${facts.baseUrl}/v1/keys/create`,
      payment:
        'Without a key, a paid tool returns isError with the x402 PaymentRequired object; retry with the payment in _meta["x402/payment"]. The settlement comes back in _meta["x402/payment-response"].',
      quality: 'Pick a quality tier with _meta["response_quality"]: cached, fresh (default) or enhanced.',
    },
    mcpServers: {
      'validation-service': {
        type: 'http',
        url,
        headers: { 'X-API-Key': '<your API key>' },
      },
    },
    tools: catalog.map((entry) => ({
      name: entry.id,
      title: entry.title,
      description: entry.summary,
      route: `${entry.method} ${entry.path}`,
      price: entry.price
        ? {
            x402_usd: entry.price.x402,
            account_usd: entry.price.account,
            text: `${priceText(entry.price.x402)} (x402) / ${priceText(entry.price.account)} (key balance)`,
          }
        : null,
    })),
    prompts: prompts.map((prompt) => ({ ...prompt })),
    documentation: {
      openapi: `${facts.baseUrl}/openapi.json`,
      docs: `${facts.baseUrl}/docs`,
      llms: `${facts.baseUrl}/llms.txt`,
    },
  }
}
