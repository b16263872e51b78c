import { type CountryRisk, type RiskLevel, riskLevelForScore } from '../reference/index.ts'
import type { RiskFactor, SourceAssessment } from './factors.ts'
import { confidenceOf } from './trust-score.ts'

/** Risk score of a sanctions match: at least this (very high). */
export const SANCTIONS_MATCH_RISK = 95
/** Risk added when the sanctions screen did not answer (never treated as clear). */
export const SANCTIONS_UNAVAILABLE_RISK = 15
/** Risk added when the sanctions screen checked only some of its lists (never treated as clear). */
export const SANCTIONS_PARTIAL_RISK = 10

/** Risk points per register outcome (enhanced tier's name search; METHODOLOGY.md "Risk score"). */
const REGISTER_RISK: Record<string, number> = {
  register_name_found: -5,
  register_name_similar: 0,
  not_in_register: 10,
  registration_ended: 15,
}
const REGISTER_UNAVAILABLE_RISK = 5

export interface EntityRisk {
  risk_score: number
  risk_level: RiskLevel
  /** Findings; here `weight` is the risk points a finding added (positive raises risk). */
  risk_factors: RiskFactor[]
  confidence: number
}

/**
 * The risk score of POST /v1/risk/score (0-100, higher is riskier; METHODOLOGY.md "Risk score"):
 * the jurisdiction's country risk, raised to 95 by a possible sanctions match, +15 when the
 * sanctions screen did not answer, +10 when it checked only some of its lists, and with a register search (enhanced tier) -5 for an active
 * registration under the name, +10 for none, +15 for an ended one, +5 when the register did not
 * answer. A source that fails only ever raises the risk.
 */
export function entityRiskOf(
  country: CountryRisk,
  sanctions: SourceAssessment,
  register?: SourceAssessment,
): EntityRisk {
  const factors: RiskFactor[] = []
  let risk = country.risk_score
  factors.push({
    factor: `country_risk_${country.risk_level}`,
    source: 'country_risk',
    severity: country.risk_level === 'low' ? 'info' : country.risk_level === 'medium' ? 'low' : 'high',
    weight: country.risk_score,
    evidence: `${country.country}: country risk ${country.risk_score} (${country.risk_level}), lists as of ${country.as_of}`,
    status: 'ok',
  })

  const sanctionsFactor = sanctions.factors[0]
  if (sanctions.status === 'unavailable') {
    risk += SANCTIONS_UNAVAILABLE_RISK
    if (sanctionsFactor) factors.push({ ...sanctionsFactor, weight: SANCTIONS_UNAVAILABLE_RISK })
  } else if (sanctions.sanctions_match) {
    const raise = Math.max(0, SANCTIONS_MATCH_RISK - risk)
    risk += raise
    if (sanctionsFactor) factors.push({ ...sanctionsFactor, weight: raise })
  } else if (sanctions.status === 'partial') {
    risk += SANCTIONS_PARTIAL_RISK
    if (sanctionsFactor) factors.push({ ...sanctionsFactor, weight: SANCTIONS_PARTIAL_RISK })
  } else if (sanctionsFactor) {
    factors.push({ ...sanctionsFactor, weight: 0 })
  }

  if (register) {
    for (const found of register.factors) {
      const points =
        register.status === 'unavailable'
          ? REGISTER_UNAVAILABLE_RISK
          : register.status === 'not_checked'
            ? 0
            : (REGISTER_RISK[found.factor] ?? 0)
      risk += points
      factors.push({ ...found, weight: points })
    }
  }

  const score = Math.min(100, Math.max(0, Math.round(risk)))
  const assessed = [sanctions, ...(register ? [register] : [])]
  return {
    risk_score: score,
    risk_level: riskLevelForScore(score),
    risk_factors: factors,
    confidence: confidenceOf([
      { source: 'country_risk', role: 'country_risk', status: 'ok', factors: [] },
      ...assessed,
    ]),
  }
}
