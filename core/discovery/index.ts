export { A2A_PROTOCOL_VERSION, buildAgentCard, X402_A2A_EXTENSION } from './agent-card.ts'
export {
  describeOperation,
  type InputPlacement,
  type JsonSchema,
  type OperationDescription,
  type OperationHints,
  type OperationPrices,
} from './describe-operation.ts'
export { exampleInputOf } from './example-input.ts'
export {
  type LegalDocument,
  privacyDocument,
  type StoredCategoryNote,
  termsDocument,
} from './legal-documents.ts'
export { buildLlmsFullTxt, buildLlmsTxt } from './llms-txt.ts'
export { buildMcpManifest, MCP_PROTOCOL_VERSION, type McpPromptSummary } from './mcp-manifest.ts'
export {
  type CatalogEntry,
  catalogEntry,
  exampleCurl,
  operationCatalog,
  priceText,
} from './operation-catalog.ts'
export { buildSecurityTxt, type SecurityTxtConfig } from './security-txt.ts'
export { buildSelfVerify } from './self-verify.ts'
export {
  type ListDateFact,
  type PaymentNetworkFact,
  SERVICE_DESCRIPTION,
  SERVICE_NAME,
  type ServiceFacts,
} from './service-facts.ts'
export { type IssuedRequirementCheck, issuedRequirementCheck, x402DiscoveryOf } from './x402-discovery.ts'
