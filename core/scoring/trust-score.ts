import { neutraliseBidi } from '../validate/bidi.ts'
import type { RiskFactor, SourceAssessment, SourceRole, SourceStatus } from './factors.ts'

/** Where every trust score starts: an entity nothing is known about yet. METHODOLOGY.md. */
export const BASE_TRUST_SCORE = 50

/** Risk clusters, best first; `sanctions_flagged` overrides the score bands. */
export const CLUSTERS = [
  'low_risk',
  'moderate_risk',
  'elevated_risk',
  'high_risk',
  'sanctions_flagged',
] as const
export type Cluster = (typeof CLUSTERS)[number]

/** Recommendations, most permissive first. */
export const RECOMMENDATIONS = ['approve', 'approve_with_monitoring', 'manual_review', 'reject'] as const
export type Recommendation = (typeof RECOMMENDATIONS)[number]

/**
 * How much each kind of source weighs in the confidence (METHODOLOGY.md "Confidence"). The
 * register and the sanctions screen are the core of a company check: when they could not be
 * asked at all they still count in the denominator.
 */
export const SOURCE_IMPORTANCE: Readonly<Record<SourceRole, number>> = {
  register: 3,
  sanctions: 3,
  vat: 2,
  domain_registration: 1,
  dns: 0.5,
  tls: 0.5,
  bank: 1,
  country_risk: 1,
  wallet: 0.5,
}

const CORE_ROLES: readonly SourceRole[] = ['register', 'sanctions']

/**
 * Points an unavailable source costs (METHODOLOGY.md "Unavailable sources"). Always negative:
 * a source that did not answer must never leave a score better than a clean answer would.
 */
export const UNAVAILABLE_PENALTY: Readonly<Record<SourceRole, number>> = {
  register: -5,
  sanctions: -10,
  vat: -4,
  domain_registration: -2,
  dns: -2,
  tls: -2,
  bank: -2,
  country_risk: -5,
  wallet: -1,
}

/**
 * Points a partial sanctions screen costs (some promised lists not checked): half the
 * unavailable penalty, and no clear points (METHODOLOGY.md "Sanctions").
 */
export const PARTIAL_SANCTIONS_PENALTY = -5

/** Score bands of the clusters (lower bound inclusive). */
export function clusterForScore(score: number): Exclude<Cluster, 'sanctions_flagged'> {
  if (score >= 80) return 'low_risk'
  if (score >= 60) return 'moderate_risk'
  if (score >= 40) return 'elevated_risk'
  return 'high_risk'
}

const RECOMMENDATION_OF: Record<Cluster, Recommendation> = {
  low_risk: 'approve',
  moderate_risk: 'approve_with_monitoring',
  elevated_risk: 'manual_review',
  high_risk: 'reject',
  sanctions_flagged: 'reject',
}

/** The stricter of two recommendations. */
export function stricterRecommendation(a: Recommendation, b: Recommendation): Recommendation {
  return RECOMMENDATIONS.indexOf(a) >= RECOMMENDATIONS.indexOf(b) ? a : b
}

/** The highest score a sanctions-flagged entity can have. */
export const SANCTIONS_FLAGGED_MAX_SCORE = 10

export interface TrustAssessment {
  trust_score: number
  cluster: Cluster
  recommendation: Recommendation
  /** 0-1: share of the evidence a full check relies on that was actually obtained. */
  confidence: number
  /**
   * Why the recommendation is not better than it is, when a missing or partial source bounds it
   * (e.g. "manual_review: the sanctions screen is partial: ..."); empty otherwise.
   */
  recommendation_reasons: string[]
  risk_factors: RiskFactor[]
  /** Sources that were called, with their status. */
  sources: SourceStatus[]
  /** Sources that answered (spec: sources_checked). */
  sources_checked: number
}

/**
 * Turns the assessments of one check into the trust score, cluster, recommendation and
 * confidence (spec: "scores (0-100), verdicts and recommendations, and reports the source of
 * each finding"; METHODOLOGY.md). The score is BASE_TRUST_SCORE plus the weights of the
 * answered findings, clamped to 0-100, then each unavailable source's (negative) uncertainty
 * penalty, clamped again: a failed source lowers every score above 0 and the confidence, and
 * never improves anything. A sanctions match caps the score at
 * SANCTIONS_FLAGGED_MAX_SCORE and sets the cluster `sanctions_flagged`.
 */
export function scoreAssessments(assessments: readonly SourceAssessment[]): TrustAssessment {
  const riskFactors = assessments.flatMap((assessment) => assessment.factors)
  // A partial source's factor is an uncertainty penalty like an unavailable one's.
  const uncertain = (factor: RiskFactor) => factor.status === 'unavailable' || factor.status === 'partial'
  const weightOf = (status: 'unavailable' | 'answered') =>
    riskFactors
      .filter((factor) => uncertain(factor) === (status === 'unavailable'))
      .reduce((total, factor) => total + factor.weight, 0)
  // Penalties apply after the cap, so a failed source costs its points even for a top score.
  const answeredScore = clamp(Math.round(BASE_TRUST_SCORE + weightOf('answered')), 0, 100)
  let trustScore = clamp(answeredScore + weightOf('unavailable'), 0, 100)
  const flagged = assessments.some((assessment) => assessment.sanctions_match === true)
  if (flagged) trustScore = Math.min(trustScore, SANCTIONS_FLAGGED_MAX_SCORE)
  const cluster: Cluster = flagged ? 'sanctions_flagged' : clusterForScore(trustScore)

  let recommendation = RECOMMENDATION_OF[cluster]
  const reasons: string[] = []
  const bound = (floor: Recommendation, reason: string) => {
    const stricter = stricterRecommendation(recommendation, floor)
    // A sentence shown as it is, quoting upstream reasons: bidirectional controls made visible.
    if (stricter !== recommendation || floor === recommendation)
      reasons.push(neutraliseBidi(`${floor}: ${reason}`))
    recommendation = stricter
  }
  // Nothing is approved without a complete sanctions screen (every promised list checked).
  const sanctions = assessments.find((assessment) => assessment.role === 'sanctions')
  if (!flagged && sanctions?.status !== 'ok') {
    bound(
      'manual_review',
      sanctions?.status === 'partial'
        ? `the sanctions screen is partial: ${sanctions.missing ?? 'not every list was checked'}`
        : `no sanctions screen answered (${sanctions?.reason ?? 'not screened'})`,
    )
  }
  // A register that was asked and did not answer leaves the company unconfirmed.
  const registerDown = assessments.find((a) => a.role === 'register' && a.status === 'unavailable')
  if (registerDown) {
    bound(
      'approve_with_monitoring',
      `the register (${registerDown.source}) did not answer (${registerDown.reason ?? 'unknown'})`,
    )
  }

  const sources: SourceStatus[] = assessments
    .filter((assessment) => assessment.status !== 'not_checked')
    .map((assessment) => ({
      source: assessment.source,
      status: assessment.status === 'not_checked' ? 'unavailable' : assessment.status,
      ...(assessment.status === 'unavailable' ? { reason: assessment.reason ?? 'unknown' } : {}),
      ...(assessment.status === 'partial' ? { reason: assessment.missing ?? 'partial' } : {}),
      fetched_at: assessment.fetched_at ?? '',
    }))

  return {
    trust_score: trustScore,
    cluster,
    recommendation,
    confidence: confidenceOf(assessments),
    recommendation_reasons: reasons,
    risk_factors: riskFactors,
    sources,
    sources_checked: sources.filter((source) => source.status === 'ok').length,
  }
}

/**
 * Confidence (METHODOLOGY.md "Confidence"): importance of the sources that answered divided by
 * the importance of the sources that were called, plus the core sources (register, sanctions)
 * when they could not be called at all. Two decimals.
 */
export function confidenceOf(assessments: readonly SourceAssessment[]): number {
  let answered = 0
  let expected = 0
  for (const assessment of assessments) {
    const importance = SOURCE_IMPORTANCE[assessment.role]
    if (assessment.status === 'ok') answered += importance
    // A partial source counts half: it answered for part of what it promises.
    if (assessment.status === 'partial') answered += importance / 2
    if (assessment.status !== 'not_checked' || CORE_ROLES.includes(assessment.role)) expected += importance
  }
  for (const role of CORE_ROLES) {
    if (!assessments.some((assessment) => assessment.role === role)) expected += SOURCE_IMPORTANCE[role]
  }
  if (expected === 0) return 0
  return Math.round((answered / expected) * 100) / 100
}

/**
 * The assessment of a source that did not answer: its uncertainty penalty as a factor, so the
 * response shows what the missing answer cost (spec: a source that did not answer is shown
 * unavailable, never clean).
 */
export function unavailableAssessment(
  source: string,
  role: SourceRole,
  reason: string,
  fetchedAt: string,
  what: string,
): SourceAssessment {
  const penalty = UNAVAILABLE_PENALTY[role]
  return {
    source,
    role,
    status: 'unavailable',
    reason,
    fetched_at: fetchedAt,
    factors: [
      {
        factor: `${source}_unavailable`,
        source,
        severity: role === 'sanctions' ? 'high' : role === 'register' ? 'medium' : 'low',
        weight: penalty,
        evidence: `${what} did not answer (${reason}); treated as unknown, not as clean`,
        status: 'unavailable',
      },
    ],
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value))
}
