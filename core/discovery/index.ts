export { A2A_PROTOCOL_VERSION, buildAgentCard, X402_A2A_EXTENSION } from './agent-card.ts'
export {
  type LegalDocument,
  privacyDocument,
  type StoredCategoryNote,
  termsDocument,
} from './legal-documents.ts'
export { buildLlmsFullTxt, buildLlmsTxt } from './llms-txt.ts'
export { buildMcpManifest, MCP_PROTOCOL_VERSION } from './mcp-manifest.ts'
export {
  type CatalogEntry,
  exampleCurl,
  exampleInputOf,
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
