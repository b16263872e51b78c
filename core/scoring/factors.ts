/** How much a finding matters, lowest first. */
export type Severity = 'info' | 'low' | 'medium' | 'high' | 'critical'
export const SEVERITIES: readonly Severity[] = ['info', 'low', 'medium', 'high', 'critical']

/**
 * Whether the source behind a finding answered. `not_checked`: the check could not be asked
 * (no register for the country, no number to look up); it is said, never shown as clean.
 */
export type FactorStatus = 'ok' | 'unavailable' | 'not_checked'

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

/** Spec: Report source status: ok, or unavailable (with a reason). */
export interface SourceStatus {
  source: string
  status: 'ok' | 'unavailable'
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
}
