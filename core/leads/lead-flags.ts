import type { SanctionsCoverage } from '../sanctions/coverage.ts'
import { neutraliseBidi } from '../validate/bidi.ts'

/*
 * The lead verdict: flag vocabulary, check points, score and verdict rules. Every number here is
 * written in core/scoring/METHODOLOGY.md ("Lead verification"); change both together (a test
 * reads the document against these tables).
 */

/**
 * What a lead check found: ok, failed, partial (the source answered for only part of what the
 * check promises, e.g. a sanctions screen without every list: never clean), unavailable or
 * not_requested.
 */
export type LeadCheckStatus = 'ok' | 'failed' | 'partial' | 'unavailable' | 'not_requested'

/** The checks of one lead, always all of them, in this order. */
export const LEAD_CHECKS = [
  'register',
  'vat',
  'email',
  'website',
  'email_website',
  'iban',
  'sanctions',
] as const
export type LeadCheckName = (typeof LEAD_CHECKS)[number]

/** Points a check adds to the lead score when it is `ok` (nothing for any other status). */
export const LEAD_CHECK_POINTS: Record<LeadCheckName, number> = {
  register: 30,
  vat: 15,
  email: 15,
  website: 5,
  email_website: 10,
  iban: 5,
  sanctions: 0,
}

/** Score every lead starts from; all checks ok and no flag gives 100. */
export const LEAD_BASE_SCORE = 20

/** Lowest score that can give `proceed` (with the other conditions of {@link leadVerdict}). */
export const LEAD_PROCEED_MIN_SCORE = 70

export const LEAD_SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const
export type LeadSeverity = (typeof LEAD_SEVERITIES)[number]

/** The one thing to do about a flag. */
export const LEAD_ACTIONS = [
  'do_not_contact',
  'verify_company_manually',
  'request_registration_number',
  'verify_vat_manually',
  'request_company_email',
  'confirm_email_domain',
  'confirm_website',
  'verify_bank_details',
  'retry_later',
] as const
export type LeadAction = (typeof LEAD_ACTIONS)[number]

interface FlagRule {
  severity: LeadSeverity
  /** Points the flag takes off the lead score. */
  penalty: number
  action: LeadAction
}

/** The flag vocabulary: every code a lead answer can carry, with its severity, penalty and action. */
export const LEAD_FLAGS = {
  sanctions_possible_match: { severity: 'critical', penalty: 100, action: 'do_not_contact' },
  company_dissolved: { severity: 'critical', penalty: 50, action: 'do_not_contact' },
  company_not_found: { severity: 'high', penalty: 30, action: 'verify_company_manually' },
  company_name_mismatch: { severity: 'medium', penalty: 15, action: 'verify_company_manually' },
  registration_number_missing: { severity: 'medium', penalty: 0, action: 'request_registration_number' },
  vat_invalid: { severity: 'high', penalty: 25, action: 'verify_vat_manually' },
  vat_other_company: { severity: 'high', penalty: 30, action: 'verify_vat_manually' },
  vat_country_mismatch: { severity: 'medium', penalty: 10, action: 'verify_vat_manually' },
  disposable_email: { severity: 'high', penalty: 40, action: 'request_company_email' },
  email_no_mail_server: { severity: 'high', penalty: 20, action: 'request_company_email' },
  free_mail_address: { severity: 'medium', penalty: 10, action: 'request_company_email' },
  email_website_mismatch: { severity: 'medium', penalty: 10, action: 'confirm_email_domain' },
  website_not_found: { severity: 'medium', penalty: 10, action: 'confirm_website' },
  foreign_iban: { severity: 'medium', penalty: 10, action: 'verify_bank_details' },
  iban_bank_unknown: { severity: 'medium', penalty: 10, action: 'verify_bank_details' },
  source_unavailable: { severity: 'low', penalty: 0, action: 'retry_later' },
} as const satisfies Record<string, FlagRule>

export type LeadFlagCode = keyof typeof LEAD_FLAGS

export interface LeadFlag {
  code: LeadFlagCode
  severity: LeadSeverity
  message: string
  action: LeadAction
  /** The check that raised it. */
  check: LeadCheckName
}

/**
 * A flag with its rule's severity and action. The message is a sentence shown as it is (in a CRM,
 * a CSV file), often quoting a register's or VIES's name: bidirectional controls in it are made
 * visible (`[U+202E]`), never passed on to reorder the sentence.
 */
export function leadFlag(code: LeadFlagCode, check: LeadCheckName, message: string): LeadFlag {
  const rule = LEAD_FLAGS[code]
  return { code, severity: rule.severity, message: neutraliseBidi(message), action: rule.action, check }
}

export interface LeadCheck {
  check: LeadCheckName
  status: LeadCheckStatus
  /** Where the answer came from (kvk, kbo, vies, dns, bank_codes, sanctions, ...). */
  source: string
  /** Why, in words: the finding, or why it could not be asked. */
  reason: string
  /** The input fields this check looked at. */
  fields: string[]
  /** email check: the disposable-mail list used. */
  list?: { package: string; version: string; published: string }
  /** sanctions check: the lists screened and not screened. */
  coverage?: SanctionsCoverage
}

export type LeadVerdict = 'proceed' | 'review' | 'block'

export interface LeadAssessment {
  verdict: LeadVerdict
  lead_score: number
  confidence: number
}

const SEVERITY_RANK: Record<LeadSeverity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 }

/**
 * Score, confidence and verdict of one lead (METHODOLOGY.md "Lead verification"):
 * - score = base + points of the `ok` checks - penalties of the flags, within 0-100. A check
 *   that is unavailable or not requested earns nothing, so a source that did not answer can
 *   never raise the score;
 * - `block` when a flag is critical (sanctions match, dissolved company);
 * - `proceed` only when the score reaches the threshold, the register check is ok, no flag is
 *   medium or worse and no requested check is unavailable or partial (so a missing answer never
 *   proceeds);
 * - `review` otherwise.
 */
export function assessLead(checks: readonly LeadCheck[], flags: readonly LeadFlag[]): LeadAssessment {
  const points = checks.reduce((sum, c) => sum + (c.status === 'ok' ? LEAD_CHECK_POINTS[c.check] : 0), 0)
  const penalties = flags.reduce((sum, f) => sum + LEAD_FLAGS[f.code].penalty, 0)
  const lead_score = Math.max(0, Math.min(100, LEAD_BASE_SCORE + points - penalties))
  const requested = checks.filter((c) => c.status !== 'not_requested')
  const answered = requested.filter((c) => c.status === 'ok' || c.status === 'failed')
  const confidence = requested.length === 0 ? 0 : Math.round((answered.length / requested.length) * 100) / 100
  const worst = Math.max(-1, ...flags.map((f) => SEVERITY_RANK[f.severity]))
  const registerOk = checks.some((c) => c.check === 'register' && c.status === 'ok')
  const anyUnavailable = requested.some((c) => c.status === 'unavailable' || c.status === 'partial')
  let verdict: LeadVerdict = 'review'
  if (worst >= SEVERITY_RANK.critical) verdict = 'block'
  else if (
    lead_score >= LEAD_PROCEED_MIN_SCORE &&
    registerOk &&
    !anyUnavailable &&
    worst < SEVERITY_RANK.medium
  )
    verdict = 'proceed'
  return { verdict, lead_score, confidence }
}
