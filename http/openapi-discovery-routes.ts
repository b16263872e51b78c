import { errorResponses, requestIdHeader } from './openapi-components.ts'

/**
 * OpenAPI entries of the public discovery routes (http/routes/discovery-routes.ts) and the API
 * reference page (docs-routes.ts). All public: no security, never 401, 402 or 403.
 */

const PUBLIC: unknown[] = []
const TAGS = ['Public']

const jsonSuccess = (description: string, schema: unknown) => ({
  description,
  headers: requestIdHeader,
  content: { 'application/json': { schema } },
})
const textSuccess = (description: string, type: string) => ({
  description,
  headers: requestIdHeader,
  content: { [type]: { schema: { type: 'string' } } },
})

const get = (operationId: string, summary: string, description: string, ok: unknown, errors = [500]) => ({
  get: {
    operationId,
    tags: TAGS,
    summary,
    description,
    security: PUBLIC,
    responses: { 200: ok, ...errorResponses(errors) },
  },
})

const agentCardSchema = {
  type: 'object',
  description:
    'A2A AgentCard (protocolVersion 0.3.0): one skill per registry operation, prices in each skill description',
  properties: {
    protocolVersion: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    url: { type: 'string' },
    preferredTransport: { type: 'string' },
    version: { type: 'string' },
    capabilities: { type: 'object', additionalProperties: true },
    securitySchemes: { type: 'object', additionalProperties: true },
    defaultInputModes: { type: 'array', items: { type: 'string' } },
    defaultOutputModes: { type: 'array', items: { type: 'string' } },
    skills: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          examples: { type: 'array', items: { type: 'string' } },
        },
        required: ['id', 'name', 'description', 'tags'],
      },
    },
  },
  required: ['protocolVersion', 'name', 'description', 'url', 'version', 'capabilities', 'skills'],
  additionalProperties: true,
}

const mcpManifestSchema = {
  type: 'object',
  description:
    'How to connect an MCP client: Streamable HTTP URL, stdio command, key header, tools with prices',
  properties: {
    name: { type: 'string' },
    version: { type: 'string' },
    protocolVersion: { type: 'string' },
    transports: { type: 'array', items: { type: 'object', additionalProperties: true } },
    authentication: { type: 'object', additionalProperties: true },
    mcpServers: { type: 'object', additionalProperties: true },
    tools: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
  required: ['name', 'version', 'transports', 'tools'],
  additionalProperties: true,
}

const selfVerifySchema = {
  type: 'object',
  properties: {
    service: { type: 'string' },
    version: { type: 'string' },
    commit: {
      type: 'string',
      description: 'Git commit of the running code (`unknown` when it cannot be read)',
    },
    base_url: { type: 'string' },
    started_at: { type: 'string', format: 'date-time' },
    uptime_s: { type: 'integer', minimum: 0 },
    checked_at: { type: 'string', format: 'date-time' },
    sanctions_lists: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          list_key: { type: 'string' },
          list: { type: 'string' },
          loaded: { type: 'boolean' },
          publication_date: { type: ['string', 'null'] },
          as_of: { type: ['string', 'null'] },
          entry_count: { type: 'integer' },
          fetched_at: { type: ['string', 'null'], format: 'date-time' },
          checked_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    },
    payments: {
      type: 'object',
      properties: {
        x402_enabled: { type: 'boolean' },
        networks: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              network: { type: 'string' },
              kind: { type: 'string', enum: ['evm', 'solana'] },
              chain_id: { type: ['integer', 'string'] },
              asset: { type: 'string' },
              pay_to: { type: 'string' },
            },
          },
        },
      },
    },
    report_signing: {
      type: 'object',
      properties: {
        key_id: {
          type: ['string', 'null'],
          description: 'Key id of the report signing key; null until reports are signed',
        },
        note: { type: 'string' },
      },
    },
    discovery: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['service', 'version', 'commit', 'uptime_s', 'sanctions_lists', 'payments', 'report_signing'],
}

export const discoveryRoutePaths: Record<string, Record<string, unknown>> = {
  '/.well-known/agent.json': get(
    'agent_card',
    'A2A agent card: skills (the operations) with prices and payment methods',
    'Generated from the operation registry. The service speaks REST and MCP; it does not accept A2A task messages.',
    jsonSuccess('The agent card', agentCardSchema),
  ),
  '/.well-known/agent-card.json': get(
    'agent_card_a2a',
    'The same A2A agent card at the path A2A 0.3 names',
    'Identical to /.well-known/agent.json.',
    jsonSuccess('The agent card', agentCardSchema),
  ),
  '/.well-known/mcp.json': get(
    'mcp_manifest',
    'How to connect an MCP client',
    'Streamable HTTP URL, stdio command, the key header, an mcpServers block for client config files, and every tool with its price.',
    jsonSuccess('The MCP connection document', mcpManifestSchema),
  ),
  '/.well-known/security.txt': get(
    'security_txt',
    'Security contact (RFC 9116)',
    'Contact, Expires, Canonical, Policy and Preferred-Languages from config (SECURITY_CONTACT, SECURITY_TXT_EXPIRES, SECURITY_POLICY_URL); a placeholder contact is marked with a comment.',
    textSuccess('security.txt', 'text/plain'),
  ),
  '/v1/self-verify': get(
    'self_verify',
    'What an agent needs to trust this deployment',
    'Version, commit, sanctions list dates, x402 chains and payTo addresses, the report signing key id and uptime.',
    jsonSuccess('The self-verification document', selfVerifySchema),
  ),
  '/v1/legal/terms': get(
    'legal_terms',
    'Terms of service (Markdown)',
    'LEGAL_TERMS_FILE, or a placeholder marked PLACEHOLDER (header X-Placeholder: true).',
    textSuccess('The terms', 'text/markdown'),
  ),
  '/v1/legal/privacy': get(
    'legal_privacy',
    'Privacy notice (Markdown)',
    'LEGAL_PRIVACY_FILE, or a placeholder marked PLACEHOLDER listing the stored data categories and their retention (header X-Placeholder: true).',
    textSuccess('The privacy notice', 'text/markdown'),
  ),
  '/llms.txt': get(
    'llms_txt',
    'llms.txt (llmstxt.org): every operation with its price and an example call',
    'Generated from the operation registry.',
    textSuccess('llms.txt', 'text/plain'),
  ),
  '/llms-full.txt': get(
    'llms_full_txt',
    'llms-full.txt: every operation with description, prices, example input, curl and MCP call',
    'Generated from the operation registry.',
    textSuccess('llms-full.txt', 'text/plain'),
  ),
  '/docs': get(
    'docs',
    'Interactive API reference (Swagger UI over /openapi.json)',
    'Served from the swagger-ui-dist package; no CDN.',
    textSuccess('The reference page', 'text/html'),
  ),
  '/docs/{asset}': {
    get: {
      operationId: 'docs_asset',
      tags: TAGS,
      summary: 'A file of the API reference page (Swagger UI script, style, icons)',
      security: PUBLIC,
      parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        200: {
          description: 'The file',
          headers: requestIdHeader,
          content: {
            'text/javascript': { schema: { type: 'string' } },
            'text/css': { schema: { type: 'string' } },
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
          },
        },
        ...errorResponses([404, 500]),
      },
    },
  },
}
