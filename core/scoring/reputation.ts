import type { Cluster } from './trust-score.ts'

/**
 * Points lost per week after the first week, by cluster (spec: POST /v1/reputation/score "after
 * the first week a score loses 2-5 points per week by risk cluster (none for a
 * sanctions-flagged entity)"). Riskier clusters lose trust faster: their facts change sooner.
 */
export const DECAY_POINTS_PER_WEEK: Readonly<Record<Cluster, number>> = {
  low_risk: 2,
  moderate_risk: 3,
  elevated_risk: 4,
  high_risk: 5,
  sanctions_flagged: 0,
}

/** Days a verification counts as fresh before decay starts. */
export const DECAY_GRACE_DAYS = 7
/** Most points repeat verifications can add (spec: "a bonus of up to 5 points"). */
export const MAX_REPEAT_BONUS = 5
/** Confidence lost per week after the grace week, and its floor. */
export const CONFIDENCE_LOSS_PER_WEEK = 0.05
export const CONFIDENCE_FLOOR = 0.2

export type Trend = 'improving' | 'stable' | 'declining'

export interface ReputationInput {
  /** The trust score at the last verification (0-100). */
  trust_score: number
  cluster: Cluster
  last_verified_at: Date
  now: Date
  /** Verifications so far, including the last one; at least 1. */
  verification_count: number
  /** Confidence of the last verification (0-1). */
  base_confidence: number
  /** Trust score of the verification before the last one, when known (for the trend). */
  previous_trust_score?: number
}

export interface Reputation {
  reputation_score: number
  trend: Trend
  confidence: number
  decay_points: number
  repeat_bonus: number
  days_since_verification: number
}

const DAY_MS = 86_400_000

/**
 * Reputation with linear trust decay (spec: POST /v1/reputation/score; METHODOLOGY.md
 * "Reputation"). decay = rate(cluster) x max(0, days - 7) / 7, linear, not stepped; bonus =
 * min(5, verification_count - 1); neither applies to a sanctions-flagged entity, whose score
 * stays where the screening put it. Confidence falls 0.05 per week after the first (floor 0.2)
 * and gains 0.02 per repeat verification (at most 0.1). Trend: the sign of (bonus - decay +
 * change since the previous verification), `stable` within one point.
 */
export function reputationOf(input: ReputationInput): Reputation {
  const ageDays = Math.max(0, (input.now.getTime() - input.last_verified_at.getTime()) / DAY_MS)
  const weeksPastGrace = Math.max(0, ageDays - DECAY_GRACE_DAYS) / 7
  const flagged = input.cluster === 'sanctions_flagged'
  const decay = DECAY_POINTS_PER_WEEK[input.cluster] * weeksPastGrace
  const repeats = Math.max(0, Math.floor(input.verification_count) - 1)
  const bonus = flagged ? 0 : Math.min(MAX_REPEAT_BONUS, repeats)
  const score = clamp(Math.round(input.trust_score - decay + bonus), 0, 100)

  const freshness = Math.max(CONFIDENCE_FLOOR, 1 - CONFIDENCE_LOSS_PER_WEEK * weeksPastGrace)
  const repeatBoost = Math.min(0.1, 0.02 * repeats)
  const confidence = Math.round(Math.min(1, input.base_confidence * freshness + repeatBoost) * 100) / 100

  const history =
    input.previous_trust_score === undefined ? 0 : input.trust_score - input.previous_trust_score
  const net = bonus - decay + history
  const trend: Trend = net >= 1 ? 'improving' : net <= -1 ? 'declining' : 'stable'
  return {
    reputation_score: score,
    trend,
    confidence,
    decay_points: Math.round(decay * 100) / 100,
    repeat_bonus: bonus,
    days_since_verification: Math.floor(ageDays),
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value))
}
