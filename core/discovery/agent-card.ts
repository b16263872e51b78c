import type { CatalogEntry } from './operation-catalog.ts'
import { priceText } from './operation-catalog.ts'
import { SERVICE_DESCRIPTION, type ServiceFacts } from './service-facts.ts'

/** The A2A protocol version whose AgentCard shape this card follows (a2a-protocol.org, 0.3.0). */
export const A2A_PROTOCOL_VERSION = '0.3.0'

/** The x402 A2A extension (payments for agent skills), named in `capabilities.extensions`. */
export const X402_A2A_EXTENSION = 'https://github.com/google-a2a/a2a-x402/v0.1'

function tagsOf(entry: CatalogEntry): string[] {
  const tags = entry.path.split('/').filter((part) => part && part !== 'v1' && !part.startsWith('{'))
  return [...new Set([entry.price ? 'paid' : 'free', ...tags])]
}

function skillDescription(entry: CatalogEntry): string {
  const parts = [`${entry.summary}.`]
  if (entry.description) parts.push(entry.description)
  parts.push(`${entry.method} ${entry.path}; MCP tool ${entry.id}.`)
  if (entry.price) {
    parts.push(
      `Price: ${priceText(entry.price.x402)} per call with x402, ${priceText(entry.price.account)} from a key balance${entry.price.per_unit ? ' (per unit)' : ''}.`,
    )
  } else {
    parts.push('Free; needs an API key.')
  }
  return parts.join(' ')
}

/**
 * The A2A agent card at `/.well-known/agent.json` (spec: Public routes): the AgentCard fields of
 * the A2A specification, one skill per registry operation with its price and payment methods.
 * This service speaks REST (HTTP+JSON) and MCP, not A2A task messages: `url` is the REST base,
 * `additionalInterfaces` names the MCP endpoint, and every skill says which route and tool run it.
 */
export function buildAgentCard(catalog: readonly CatalogEntry[], facts: ServiceFacts) {
  const base = facts.baseUrl
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: facts.name,
    description: `${SERVICE_DESCRIPTION} Interfaces: REST (see documentationUrl) and MCP over Streamable HTTP at ${base}/mcp; this service does not accept A2A task messages.`,
    url: `${base}/v1`,
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [
      { url: `${base}/v1`, transport: 'HTTP+JSON' },
      { url: `${base}/mcp`, transport: 'MCP' },
    ],
    version: facts.version,
    documentationUrl: `${base}/docs`,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      stateTransitionHistory: false,
      extensions: [
        {
          uri: X402_A2A_EXTENSION,
          description:
            'Paid skills accept x402 payments (USDC): call without credentials, read the 402 challenge (PAYMENT-REQUIRED header), retry with PAYMENT-SIGNATURE or X-PAYMENT. Prices per skill are in each skill description and at /.well-known/x402.json.',
          required: false,
          params: {
            discovery: `${base}/.well-known/x402.json`,
            networks: facts.networks.map((network) => ({
              network: network.network,
              asset: network.asset,
              payTo: network.pay_to,
            })),
          },
        },
      ],
    },
    securitySchemes: {
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'Prepaid key (svc_live_…) or free sandbox key (svc_sandbox_…) from POST /v1/keys/create',
      },
      x402: {
        type: 'apiKey',
        in: 'header',
        name: 'PAYMENT-SIGNATURE',
        description: 'x402 v2 payment (base64 JSON); X-PAYMENT is accepted too. Paid skills only.',
      },
    },
    security: [{ apiKey: [] }, { x402: [] }],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: catalog.map((entry) => ({
      id: entry.id,
      name: entry.title,
      description: skillDescription(entry),
      tags: tagsOf(entry),
      examples: [JSON.stringify(entry.example_input)],
      inputModes: ['application/json'],
      outputModes: ['application/json'],
      security: entry.price ? [{ apiKey: [] }, { x402: [] }] : [{ apiKey: [] }],
    })),
    supportsAuthenticatedExtendedCard: false,
  }
}
