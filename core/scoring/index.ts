export {
  assessCountryRisk,
  assessDns,
  assessIban,
  assessKboEnterprise,
  assessKvkCompany,
  assessKvkSearch,
  assessRdap,
  assessSanctions,
  assessTls,
  assessVies,
  assessWallet,
  countryRiskWeight,
  notCheckedAssessment,
  type SanctionsScreening,
} from './company-assessments.ts'
export {
  type EntityRisk,
  entityRiskOf,
  SANCTIONS_MATCH_RISK,
  SANCTIONS_UNAVAILABLE_RISK,
} from './entity-risk.ts'
export {
  FACTORS,
  type FactorName,
  type FactorSeverity,
  type FactorStatus,
  type RiskFactor,
  SEVERITIES,
  type Severity,
  type SourceAssessment,
  type SourceRole,
  type SourceStatus,
} from './factors.ts'
export { METHODOLOGY_PATH, readMethodology } from './methodology.ts'
export {
  compareCompanyNames,
  coreNameTokens,
  type NameComparison,
  type NameVerdict,
  normaliseCompanyName,
} from './name-match.ts'
export {
  CONFIDENCE_FLOOR,
  CONFIDENCE_LOSS_PER_WEEK,
  DECAY_GRACE_DAYS,
  DECAY_POINTS_PER_WEEK,
  MAX_REPEAT_BONUS,
  type Reputation,
  type ReputationInput,
  reputationOf,
  type Trend,
} from './reputation.ts'
export type { SanctionsNameMatch, SanctionsNameScreenResult } from './sanctions-name-result.ts'
export {
  BASE_TRUST_SCORE,
  CLUSTERS,
  type Cluster,
  clusterForScore,
  confidenceOf,
  RECOMMENDATIONS,
  type Recommendation,
  SANCTIONS_FLAGGED_MAX_SCORE,
  SOURCE_IMPORTANCE,
  scoreAssessments,
  stricterRecommendation,
  type TrustAssessment,
  UNAVAILABLE_PENALTY,
  unavailableAssessment,
} from './trust-score.ts'
