import { isCountryCode } from '../validate/index.ts'
import {
  COMPREHENSIVE_SANCTIONS,
  type CountryList,
  type CountryListId,
  EU_EEA_MEMBERS,
  EU_HIGH_RISK_THIRD_COUNTRIES,
  FATF_CALL_FOR_ACTION,
  FATF_INCREASED_MONITORING,
  FATF_MEMBERS,
  SECTORAL_SANCTIONS,
} from './country-risk-lists.ts'

export type RiskLevel = 'low' | 'medium' | 'high' | 'very_high'

export type CountryRiskFactor = {
  list: CountryListId
  /** Human-readable list name. */
  name: string
  /** Publisher and document the list comes from. */
  source: string
  as_of: string
  /** Whether the factor raised the score (a listing) or set a lower baseline (a membership). */
  effect: 'raises' | 'lowers'
}

export type CountryRisk = {
  country: string
  /** 0-100, higher is riskier. */
  risk_score: number
  risk_level: RiskLevel
  factors: CountryRiskFactor[]
  /** Date of the newest list in the data set, the same for every country. */
  as_of: string
}

/*
 * Country-risk scoring rule (the project's own; see README.md in this folder):
 *
 * 1. Baseline when a country is on no risk list:
 *      EU/EEA member state                                   10
 *      FATF member jurisdiction (membership not suspended)   20
 *      any other country                                     30
 * 2. Each risk list sets a floor:
 *      FATF call for action ("black list")                   90
 *      comprehensive (country-wide) sanctions               85
 *      EU high-risk third country (Reg. 2016/1675)           70
 *      FATF increased monitoring ("grey list")               65
 *      extensive sectoral sanctions (RU, BY)                 60
 * 3. Score = max(baseline, highest floor) + 5 for every further list the country is on,
 *    capped at 100. Memberships never lower a listed country below its floor.
 * 4. Level: 0-24 low, 25-49 medium, 50-79 high, 80-100 very_high.
 *
 * The score describes the jurisdiction only. It is an input to entity scoring, not a verdict on
 * any company, and it is only as current as the dated lists behind it (COUNTRY_RISK_AS_OF).
 */

const RISK_FLOORS: ReadonlyArray<{ list: CountryList; floor: number }> = [
  { list: FATF_CALL_FOR_ACTION, floor: 90 },
  { list: COMPREHENSIVE_SANCTIONS, floor: 85 },
  { list: EU_HIGH_RISK_THIRD_COUNTRIES, floor: 70 },
  { list: FATF_INCREASED_MONITORING, floor: 65 },
  { list: SECTORAL_SANCTIONS, floor: 60 },
]

const BASELINE_EU_EEA = 10
const BASELINE_FATF_MEMBER = 20
const BASELINE_OTHER = 30
const EXTRA_LIST_POINTS = 5

/** All lists that feed the score, for documentation and a sources listing. */
export const COUNTRY_RISK_LISTS: readonly CountryList[] = [
  ...RISK_FLOORS.map((entry) => entry.list),
  EU_EEA_MEMBERS,
  FATF_MEMBERS,
]

/** Date of the newest list in the data set. */
export const COUNTRY_RISK_AS_OF: string =
  COUNTRY_RISK_LISTS.map((list) => list.as_of)
    .sort()
    .at(-1) ?? ''

/** Maps a 0-100 score to its level (0-24 low, 25-49 medium, 50-79 high, 80-100 very_high). */
export function riskLevelForScore(score: number): RiskLevel {
  if (score >= 80) return 'very_high'
  if (score >= 50) return 'high'
  if (score >= 25) return 'medium'
  return 'low'
}

function factor(list: CountryList, effect: CountryRiskFactor['effect']): CountryRiskFactor {
  return { list: list.id, name: list.name, source: list.source, as_of: list.as_of, effect }
}

/**
 * Scores the money-laundering and sanctions risk of a jurisdiction from dated official lists
 * (FATF black and grey lists, the EU high-risk third-country list, country-wide and sectoral
 * sanctions programmes) with the documented rule above. Spec: entity check "country risk" and
 * POST /v1/risk/score (risk_score 0-100, risk_level). Returns null for a code that is not an
 * assigned ISO 3166-1 alpha-2 code.
 */
export function countryRisk(code: string): CountryRisk | null {
  if (!isCountryCode(code)) return null
  const listings = RISK_FLOORS.filter(({ list }) => list.countries.includes(code))
  const factors: CountryRiskFactor[] = listings.map(({ list }) => factor(list, 'raises'))
  let baseline = BASELINE_OTHER
  let membership: CountryList | undefined
  if (EU_EEA_MEMBERS.countries.includes(code)) {
    baseline = BASELINE_EU_EEA
    membership = EU_EEA_MEMBERS
  } else if (FATF_MEMBERS.countries.includes(code)) {
    baseline = BASELINE_FATF_MEMBER
    membership = FATF_MEMBERS
  }
  // A membership explains the score only when no risk list applies (it never lowers a floor).
  if (membership !== undefined && listings.length === 0) factors.push(factor(membership, 'lowers'))
  const highestFloor = Math.max(0, ...listings.map((entry) => entry.floor))
  const extra = listings.length > 1 ? EXTRA_LIST_POINTS * (listings.length - 1) : 0
  const riskScore = Math.min(100, Math.max(baseline, highestFloor) + extra)
  return {
    country: code,
    risk_score: riskScore,
    risk_level: riskLevelForScore(riskScore),
    factors,
    as_of: COUNTRY_RISK_AS_OF,
  }
}
