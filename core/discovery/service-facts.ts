/**
 * What the public discovery documents say about this deployment, gathered once by the composition
 * root (version, commit, public URL, payment networks) plus live readers (sanctions list dates).
 */

/** One x402 network this deployment accepts, with where the money goes. */
export interface PaymentNetworkFact {
  /** CAIP-2 id (`eip155:8453`). */
  network: string
  kind: 'evm' | 'solana'
  chain_id: number | string
  /** USDC contract (EVM) or mint (Solana). */
  asset: string
  pay_to: string
}

/** One sanctions list as held now. */
export interface ListDateFact {
  list_key: string
  list: string
  loaded: boolean
  publication_date: string | null
  as_of: string | null
  entry_count: number
  fetched_at: string | null
  checked_at: string | null
}

export interface ServiceFacts {
  name: string
  version: string
  /** Git commit the process runs (SERVICE_COMMIT, else read from .git at start-up; `unknown` otherwise). */
  commit: string
  /** PUBLIC_BASE_URL (no trailing slash). */
  baseUrl: string
  startedAt: Date
  networks: readonly PaymentNetworkFact[]
  /** The lists held now (live). */
  listDates(): ListDateFact[]
  /**
   * Key id of the key that signs reports (JWS `kid`), once report signing exists; null until then.
   * The report-signing work fills this in (server/compose.ts passes it).
   */
  reportSigningKeyId: string | null
}

export const SERVICE_NAME = 'Entity, Lead and Wallet Validation Service'

export const SERVICE_DESCRIPTION =
  'Validates companies (Dutch KVK and Belgian KBO registers, EU VAT via VIES, OFAC/EU/UN sanctions, country risk, domain, IBAN), sales leads and AI agent wallets. Every answer names its sources; a source that did not answer is reported unavailable, never clean. Pay per call with x402 (USDC on Base or Solana) or from a prepaid API key balance; a free sandbox key returns mock data.'
