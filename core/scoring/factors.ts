/** How much a finding matters, lowest first. */
export type Severity = 'info' | 'low' | 'medium' | 'high' | 'critical'
export const SEVERITIES: readonly Severity[] = ['info', 'low', 'medium', 'high', 'critical']

/**
 * Whether the source behind a finding answered. `partial`: it answered for only part of what it
 * promises (a sanctions screen without every list), so it is never clean. `not_checked`: the
 * check could not be asked (no register for the country, no number to look up); it is said,
 * never shown as clean.
 */
export type FactorStatus = 'ok' | 'partial' | 'unavailable' | 'not_checked'

/** One finding behind a score (spec: "reports the source of each finding"). */
export interface RiskFactor {
  /** Stable snake_case name of what was found, e.g. `registered_active`. */
  factor: string
  /** The source that found it, e.g. `kvk`, `vies`, `country_risk`. */
  source: string
  severity: Severity
  /** Points this finding moved the trust score (negative lowers it). */
  weight: number
  /** The finding itself, in words, with the data it rests on. */
  evidence: string
  status: FactorStatus
}

/**
 * Spec: Report source status: ok, or unavailable (with a reason); `partial` when a source
 * answered for only part of what it promises (a sanctions screen without every list).
 */
export interface SourceStatus {
  source: string
  status: 'ok' | 'partial' | 'unavailable'
  reason?: string
  /** ISO timestamp of the call. */
  fetched_at: string
}

/**
 * What the scoring needs to know about a source's part in the check: its kind (which fixes its
 * importance and its uncertainty penalty), whether it answered, and its findings.
 */
export type SourceRole =
  | 'register'
  | 'sanctions'
  | 'vat'
  | 'domain_registration'
  | 'dns'
  | 'tls'
  | 'bank'
  | 'country_risk'
  | 'wallet'

export interface SourceAssessment {
  source: string
  role: SourceRole
  status: FactorStatus
  /** Present when the source was called (not for `not_checked`). */
  fetched_at?: string
  /** Why the source was unavailable (from the adapter, or `not_configured`). */
  reason?: string
  factors: RiskFactor[]
  /** Set by the sanctions assessment when a list matched. */
  sanctions_match?: boolean
  /** What a `partial` source could not cover, in words (it bounds the recommendation). */
  missing?: string
}

/**
 * Every factor name the company assessments (company-assessments.ts) can produce, with the
 * severities it is produced with. Their `factor` helper takes only a name listed here (and one
 * of its severities), so no finding can be produced without being listed, and METHODOLOGY.md is
 * checked against this list (methodology.test.ts) instead of against the source text. Not
 * listed: the `<source>_unavailable` factor of a source that did not answer (named after the
 * source, trust-score.ts `unavailableAssessment`).
 */
export const FACTORS = {
  // Register (kvk, kbo)
  registered_active: ['info'],
  register_name_match: ['info'],
  register_name_partial_match: ['low'],
  register_name_mismatch: ['medium'],
  recently_registered: ['low'],
  registration_ended: ['high'],
  not_in_register: ['high', 'medium'],
  register_name_found: ['info'],
  register_name_similar: ['low'],
  register_not_checked: ['info'],
  register_not_covered: ['info'],
  // VAT (vies)
  vat_valid: ['info'],
  vat_name_match: ['info'],
  vat_name_partial_match: ['low'],
  vat_name_mismatch: ['medium'],
  vat_country_mismatch: ['low'],
  vat_invalid: ['high', 'medium'],
  // Domain (rdap, dns, tls)
  domain_established: ['info'],
  domain_young: ['info'],
  domain_registered: ['info'],
  domain_newly_registered: ['medium'],
  domain_expiring: ['low'],
  domain_not_registered: ['high'],
  domain_does_not_resolve: ['medium'],
  mail_configured: ['info'],
  no_mail_server: ['low'],
  spf_present: ['info'],
  spf_missing: ['info'],
  dmarc_enforced: ['info'],
  dmarc_not_enforced: ['info'],
  dmarc_missing: ['low'],
  tls_valid: ['info'],
  tls_invalid: ['low'],
  // IBAN (bank_codes), wallet (wallet_format)
  iban_bank_identified: ['info'],
  iban_bank_unknown: ['low'],
  iban_structure_valid: ['info'],
  iban_country_mismatch: ['low'],
  wallet_format_valid: ['info'],
  wallet_sanctions_clear: ['info'],
  wallet_sanctioned: ['critical'],
  wallet_not_screened: ['low'],
  wallet_screen_partial: ['low'],
  // Country risk (country_risk), one per risk level
  country_risk_low: ['info'],
  country_risk_medium: ['low'],
  country_risk_high: ['high'],
  country_risk_very_high: ['critical'],
  // Sanctions (sanctions)
  sanctions_clear: ['info'],
  sanctions_partial: ['high'],
  sanctions_possible_match: ['critical'],
} as const satisfies Record<string, readonly Severity[]>

/** A factor name the company assessments can produce. */
export type FactorName = keyof typeof FACTORS

/** The severities a factor is produced with. */
export type FactorSeverity<Name extends FactorName> = (typeof FACTORS)[Name][number]
