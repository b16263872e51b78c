/**
 * The upstream providers the service uses, one entry each (spec: Provider). Adding a provider is
 * one entry here plus one line in the composition root saying how it is reached and what its
 * health is (server/providers.ts). `provider_id` is a UUID v5 of the key, so it never changes.
 */

/**
 * How far a provider's answers are trusted:
 * - `verified`: an official source run by the authority for that data (a government register, a
 *   sanctions authority, a domain registry through IANA's RDAP bootstrap);
 * - `protocol`: infrastructure whose answer is checked by its protocol (DNS, TLS certificate chains,
 *   a blockchain node's signed data), not by who runs it;
 * - `operator`: a service the operator chose and configured (x402 facilitator).
 */
export type TrustLevel = 'verified' | 'protocol' | 'operator'

export type ProviderKind =
  | 'register'
  | 'tax'
  | 'sanctions_list'
  | 'pep_list'
  | 'insolvency_register'
  | 'news'
  | 'credit'
  | 'domain'
  | 'chain'
  | 'payment'

export interface ProviderDefinition {
  /** Stable short name; the UUID is derived from it. */
  key: string
  name: string
  kind: ProviderKind
  /** The public address of the provider; the running value (from config) replaces it when known. */
  default_endpoint: string
  /** Operation ids (and internal jobs such as `x402_settlement`) that read from it. */
  supported_checks: readonly string[]
  trust_level: TrustLevel
}

const COMPANY_CHECKS = ['entity_check', 'risk_score', 'reputation_score', 'kyb_check'] as const
/** The company checks and lead verification (they share the register, VAT and sanctions sources). */
const COMPANY_AND_LEAD_CHECKS = [...COMPANY_CHECKS, 'leads_verify'] as const

export const PROVIDERS: readonly ProviderDefinition[] = [
  {
    key: 'kvk',
    name: 'KVK Handelsregister (Netherlands Chamber of Commerce API)',
    kind: 'register',
    default_endpoint: 'https://api.kvk.nl',
    supported_checks: COMPANY_AND_LEAD_CHECKS,
    trust_level: 'verified',
  },
  {
    key: 'kbo',
    name: 'KBO/BCE open data (Belgian Crossroads Bank for Enterprises)',
    kind: 'register',
    default_endpoint: 'https://kbopub.economie.fgov.be/kbo-open-data',
    supported_checks: COMPANY_AND_LEAD_CHECKS,
    trust_level: 'verified',
  },
  {
    key: 'vies',
    name: 'VIES VAT number validation (European Commission)',
    kind: 'tax',
    default_endpoint: 'https://ec.europa.eu/taxation_customs/vies/rest-api',
    supported_checks: COMPANY_AND_LEAD_CHECKS,
    trust_level: 'verified',
  },
  {
    key: 'rdap',
    name: 'RDAP domain registration data (IANA bootstrap to the registries)',
    kind: 'domain',
    default_endpoint: 'https://data.iana.org/rdap/dns.json',
    supported_checks: ['entity_check', 'kyb_check'],
    trust_level: 'verified',
  },
  {
    key: 'dns',
    name: 'DNS (MX, SPF and DMARC records)',
    kind: 'domain',
    default_endpoint: 'dns://system-resolver',
    supported_checks: ['entity_check', 'kyb_check', 'leads_verify'],
    trust_level: 'protocol',
  },
  {
    key: 'tls',
    name: 'TLS certificate probe (port 443 of the checked domain)',
    kind: 'domain',
    default_endpoint: 'tls://{domain}:443',
    supported_checks: ['entity_check', 'kyb_check'],
    trust_level: 'protocol',
  },
  {
    key: 'ofac_sdn',
    name: 'OFAC Specially Designated Nationals list (US Treasury)',
    kind: 'sanctions_list',
    default_endpoint:
      'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN_ADVANCED.XML',
    supported_checks: ['sanctions_screen', ...COMPANY_AND_LEAD_CHECKS],
    trust_level: 'verified',
  },
  {
    key: 'eu',
    name: 'EU Consolidated Financial Sanctions List (European Commission)',
    kind: 'sanctions_list',
    default_endpoint:
      'https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw',
    supported_checks: ['sanctions_screen', ...COMPANY_AND_LEAD_CHECKS],
    trust_level: 'verified',
  },
  {
    key: 'un',
    name: 'UN Security Council Consolidated List',
    kind: 'sanctions_list',
    default_endpoint: 'https://scsanctions.un.org/resources/xml/en/consolidated.xml',
    supported_checks: ['sanctions_screen', ...COMPANY_AND_LEAD_CHECKS],
    trust_level: 'verified',
  },
  {
    key: 'yente',
    name: 'OpenSanctions-compatible matching API (yente /match: PEP and relatives/close associates)',
    kind: 'pep_list',
    default_endpoint: 'https://api.opensanctions.org',
    supported_checks: ['entity_deep_check', 'entity_report'],
    trust_level: 'operator',
  },
  {
    key: 'insolvency_nl',
    name: 'Centraal Insolventieregister (Dutch insolvency register, Rechtspraak SOAP web service)',
    kind: 'insolvency_register',
    default_endpoint: 'https://webservice.rechtspraak.nl/cir.asmx',
    supported_checks: ['entity_deep_check'],
    trust_level: 'verified',
  },
  {
    key: 'gdelt',
    name: 'GDELT DOC 2.0 API (adverse media: news articles with tone)',
    kind: 'news',
    default_endpoint: 'https://api.gdeltproject.org/api/v2/doc/doc',
    supported_checks: ['entity_deep_check'],
    trust_level: 'operator',
  },
  {
    key: 'credit_it',
    name: 'Italian company credit report (openapi.com Risk API)',
    kind: 'credit',
    default_endpoint: 'https://risk.openapi.com',
    supported_checks: ['entity_deep_check'],
    trust_level: 'operator',
  },
  {
    key: 'base_rpc',
    name: 'Base mainnet JSON-RPC node',
    kind: 'chain',
    default_endpoint: 'https://mainnet.base.org',
    supported_checks: [
      'x402_settlement',
      'x402_funds_check',
      'financial_health',
      'agent_check',
      'wallet_balance',
    ],
    trust_level: 'protocol',
  },
  {
    key: 'erc8004_identity',
    name: 'ERC-8004 Identity Registry (agent ids, owners and agent wallets, on Base)',
    kind: 'chain',
    default_endpoint: 'eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432',
    supported_checks: ['agent_check', 'wallet_balance'],
    trust_level: 'protocol',
  },
  {
    key: 'erc8004_reputation',
    name: 'ERC-8004 Reputation Registry (agent feedback, on Base)',
    kind: 'chain',
    default_endpoint: 'eip155:8453:0x8004BAa17C55a88189AE136b182e5fdA19dE9b63',
    supported_checks: ['agent_check'],
    trust_level: 'protocol',
  },
  {
    key: 'solana_rpc',
    name: 'Solana JSON-RPC node (x402 SVM verification and settlement)',
    kind: 'payment',
    default_endpoint: 'https://api.mainnet-beta.solana.com',
    supported_checks: ['x402_settlement', 'x402_verification_solana'],
    trust_level: 'protocol',
  },
  {
    key: 'x402_facilitator',
    name: 'x402 facilitator (payment verification and settlement)',
    kind: 'payment',
    default_endpoint: 'https://x402.org/facilitator',
    supported_checks: ['x402_settlement', 'x402_verification_solana'],
    trust_level: 'operator',
  },
]
