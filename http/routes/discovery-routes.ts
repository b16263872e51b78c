import { Hono } from 'hono'
import type { Clock } from '../../core/context.ts'
import {
  buildAgentCard,
  buildLlmsFullTxt,
  buildLlmsTxt,
  buildMcpManifest,
  buildSecurityTxt,
  buildSelfVerify,
  type LegalDocument,
  type McpPromptSummary,
  operationCatalog,
  type SecurityTxtConfig,
  type ServiceFacts,
} from '../../core/discovery/index.ts'
import type { AnyOperation } from '../../core/operations/index.ts'
import type { AppEnv } from '../env.ts'

export interface DiscoveryRoutesOptions {
  operations: readonly AnyOperation[]
  facts: ServiceFacts
  securityTxt: Omit<SecurityTxtConfig, 'baseUrl'>
  legal: { terms: LegalDocument; privacy: LegalDocument }
  clock: Clock
  /** The MCP prompts, listed in /.well-known/mcp.json as prompts/list gives them. */
  prompts?: readonly McpPromptSummary[]
}

const TEXT = 'text/plain; charset=utf-8'
const MARKDOWN = 'text/markdown; charset=utf-8'

/**
 * Public discovery routes (spec: Public routes; never 401, 402 or 403): the A2A agent card, the
 * MCP connection document, security.txt, self-verify, the legal texts and llms.txt. Whatever
 * describes operations is generated from the registry once, at start-up.
 */
export function discoveryRoutes(options: DiscoveryRoutesOptions) {
  const { facts, clock, legal } = options
  const catalog = operationCatalog(options.operations)
  const agentCard = buildAgentCard(catalog, facts)
  const mcpManifest = buildMcpManifest(catalog, facts, options.prompts)
  const llms = buildLlmsTxt(catalog, facts)
  const llmsFull = buildLlmsFullTxt(catalog, facts)
  const securityTxt = { ...options.securityTxt, baseUrl: facts.baseUrl }
  const legalHeaders = (document: LegalDocument) => ({
    'Content-Type': MARKDOWN,
    'X-Placeholder': String(document.placeholder),
  })
  return (
    new Hono<AppEnv>()
      .get('/.well-known/agent.json', (c) => c.json(agentCard))
      // The path A2A 0.3 names for the card; agent.json is the spec's (and earlier A2A versions').
      .get('/.well-known/agent-card.json', (c) => c.json(agentCard))
      .get('/.well-known/mcp.json', (c) => c.json(mcpManifest))
      .get('/.well-known/security.txt', (c) =>
        c.body(buildSecurityTxt(securityTxt, clock.now()), 200, { 'Content-Type': TEXT }),
      )
      .get('/v1/self-verify', (c) => c.json(buildSelfVerify(facts, clock.now())))
      .get('/v1/legal/terms', (c) => c.body(legal.terms.markdown, 200, legalHeaders(legal.terms)))
      .get('/v1/legal/privacy', (c) => c.body(legal.privacy.markdown, 200, legalHeaders(legal.privacy)))
      .get('/llms.txt', (c) => c.body(llms, 200, { 'Content-Type': TEXT }))
      .get('/llms-full.txt', (c) => c.body(llmsFull, 200, { 'Content-Type': TEXT }))
  )
}
