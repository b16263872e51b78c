import type { JsonSchema } from '../../core/discovery/describe-operation.ts'
import { jsonResponse, type RouteDescription, textResponse } from '../route-description.ts'

/**
 * The public discovery routes (http/routes/discovery-routes.ts, report-public-routes.ts) and the
 * API reference page (docs-routes.ts). All public: no security, never 401, 402 or 403.
 */

/** A public GET answered 200 or 500. */
const publicGet = (
  id: string,
  path: string,
  summary: string,
  description: string,
  ok: RouteDescription['responses'][number],
): RouteDescription => ({
  id,
  method: 'GET',
  path,
  tags: ['Public'],
  summary,
  description,
  access: 'public',
  responses: [ok],
  errors: [500],
})

const agentCardSchema: JsonSchema = {
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

const mcpManifestSchema: JsonSchema = {
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

const selfVerifySchema: JsonSchema = {
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

export const discoveryRoutes: readonly RouteDescription[] = [
  publicGet(
    'agent_card',
    '/.well-known/agent.json',
    'A2A agent card: skills (the operations) with prices and payment methods',
    'Generated from the operation registry. The service speaks REST and MCP; it does not accept A2A task messages.',
    jsonResponse(200, 'The agent card', agentCardSchema),
  ),
  publicGet(
    'agent_card_a2a',
    '/.well-known/agent-card.json',
    'The same A2A agent card at the path A2A 0.3 names',
    'Identical to /.well-known/agent.json.',
    jsonResponse(200, 'The agent card', agentCardSchema),
  ),
  publicGet(
    'mcp_manifest',
    '/.well-known/mcp.json',
    'How to connect an MCP client',
    'Streamable HTTP URL, stdio command, the key header, an mcpServers block for client config files, and every tool with its price.',
    jsonResponse(200, 'The MCP connection document', mcpManifestSchema),
  ),
  publicGet(
    'report_signing_jwks',
    '/.well-known/jwks.json',
    "Public key of the entity reports' signatures (JWKS)",
    'The Ed25519 public key (JWK with kid) that verifies evidence.signature of every entity report: a detached JWS over the RFC 8785 canonical JSON of the report without evidence. Its kid is also in /v1/self-verify (report_signing.key_id).',
    jsonResponse(200, 'The JSON Web Key Set', {
      type: 'object',
      required: ['keys'],
      properties: { keys: { type: 'array', items: { type: 'object', additionalProperties: true } } },
    }),
  ),
  {
    id: 'entity_badge',
    method: 'GET',
    path: '/v1/badge/{entity_id}',
    tags: ['Public'],
    summary: 'Entity badge (SVG): trust level and date of the latest report',
    description:
      'A small SVG with the trust level and the date of the newest entity report on this entity (any key\'s), or "unknown". No name, number or other personal data. Public: never 401, 402 or 403; cached for 5 minutes.',
    access: 'public',
    parameters: [
      {
        name: 'entity_id',
        in: 'path',
        required: true,
        description: 'entity.entity_hash of a report (hex SHA-256); anything else gets the "unknown" badge',
        schema: { type: 'string' },
      },
    ],
    responses: [textResponse(200, 'The badge', 'image/svg+xml')],
    errors: [500],
  },
  publicGet(
    'security_txt',
    '/.well-known/security.txt',
    'Security contact (RFC 9116)',
    'Contact, Expires, Canonical, Policy and Preferred-Languages from config (SECURITY_CONTACT, SECURITY_TXT_EXPIRES, SECURITY_POLICY_URL); a placeholder contact is marked with a comment.',
    textResponse(200, 'security.txt', 'text/plain'),
  ),
  publicGet(
    'self_verify',
    '/v1/self-verify',
    'What an agent needs to trust this deployment',
    'Version, commit, sanctions list dates, x402 chains and payTo addresses, the report signing key id and uptime.',
    jsonResponse(200, 'The self-verification document', selfVerifySchema),
  ),
  publicGet(
    'legal_terms',
    '/v1/legal/terms',
    'Terms of service (Markdown)',
    'LEGAL_TERMS_FILE, or a placeholder marked PLACEHOLDER (header X-Placeholder: true).',
    textResponse(200, 'The terms', 'text/markdown'),
  ),
  publicGet(
    'legal_privacy',
    '/v1/legal/privacy',
    'Privacy notice (Markdown)',
    'LEGAL_PRIVACY_FILE, or a placeholder marked PLACEHOLDER listing the stored data categories and their retention (header X-Placeholder: true).',
    textResponse(200, 'The privacy notice', 'text/markdown'),
  ),
  publicGet(
    'llms_txt',
    '/llms.txt',
    'llms.txt (llmstxt.org): every operation with its price and an example call',
    'Generated from the operation registry.',
    textResponse(200, 'llms.txt', 'text/plain'),
  ),
  publicGet(
    'llms_full_txt',
    '/llms-full.txt',
    'llms-full.txt: every operation with description, prices, example input, curl and MCP call',
    'Generated from the operation registry.',
    textResponse(200, 'llms-full.txt', 'text/plain'),
  ),
  publicGet(
    'docs',
    '/docs',
    'Interactive API reference (Swagger UI over /openapi.json)',
    'Served from the swagger-ui-dist package; no CDN.',
    textResponse(200, 'The reference page', 'text/html'),
  ),
  {
    id: 'docs_asset',
    method: 'GET',
    path: '/docs/{asset}',
    tags: ['Public'],
    summary: 'A file of the API reference page (Swagger UI script, style, icons)',
    access: 'public',
    parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string' } }],
    responses: [
      {
        status: 200,
        description: 'The file',
        content: {
          'text/javascript': { type: 'string' },
          'text/css': { type: 'string' },
          'image/png': { type: 'string', contentMediaType: 'image/png' },
        },
      },
    ],
    errors: [404, 500],
  },
]
