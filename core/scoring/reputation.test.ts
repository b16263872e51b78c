import { describe, expect, it } from 'vitest'
import { DECAY_POINTS_PER_WEEK, reputationOf } from './reputation.ts'
import type { Cluster } from './trust-score.ts'

const NOW = new Date('2026-03-01T00:00:00.000Z')
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000)

const base = {
  trust_score: 80,
  now: NOW,
  verification_count: 1,
  base_confidence: 1,
}

describe('reputationOf: linear decay after the first week, by cluster', () => {
  // [cluster, days since verification, expected score from 80 with one verification]
  const table: [Cluster, number, number][] = [
    ['low_risk', 0, 80],
    ['low_risk', 7, 80],
    ['low_risk', 14, 78],
    ['low_risk', 21, 76],
    ['low_risk', 10.5, 79],
    ['moderate_risk', 7, 80],
    ['moderate_risk', 14, 77],
    ['moderate_risk', 35, 68],
    ['elevated_risk', 14, 76],
    ['elevated_risk', 35, 64],
    ['high_risk', 14, 75],
    ['high_risk', 35, 60],
    ['high_risk', 365, 0],
    ['sanctions_flagged', 14, 80],
    ['sanctions_flagged', 365, 80],
  ]
  it.each(table)('%s after %f days scores %i', (cluster, days, expected) => {
    const result = reputationOf({ ...base, cluster, last_verified_at: daysAgo(days) })
    expect(result.reputation_score).toBe(expected)
  })

  it('loses between 2 and 5 points per week in every cluster except sanctions_flagged', () => {
    for (const [cluster, rate] of Object.entries(DECAY_POINTS_PER_WEEK)) {
      if (cluster === 'sanctions_flagged') expect(rate).toBe(0)
      else expect(rate).toBeGreaterThanOrEqual(2)
      expect(rate).toBeLessThanOrEqual(5)
    }
  })
})

describe('reputationOf: repeat bonus', () => {
  // [cluster, verification_count, expected bonus]
  const table: [Cluster, number, number][] = [
    ['low_risk', 1, 0],
    ['low_risk', 2, 1],
    ['low_risk', 4, 3],
    ['low_risk', 6, 5],
    ['low_risk', 50, 5],
    ['high_risk', 3, 2],
    ['sanctions_flagged', 10, 0],
  ]
  it.each(table)('%s verified %i times gets +%i', (cluster, count, bonus) => {
    const result = reputationOf({ ...base, cluster, verification_count: count, last_verified_at: NOW })
    expect(result.repeat_bonus).toBe(bonus)
    expect(result.reputation_score).toBe(80 + bonus)
  })

  it('adds the bonus after the decay and never goes above 100', () => {
    const decayed = reputationOf({
      ...base,
      cluster: 'moderate_risk',
      verification_count: 4,
      last_verified_at: daysAgo(21),
    })
    expect(decayed.reputation_score).toBe(80 - 6 + 3)
    const top = reputationOf({
      ...base,
      trust_score: 99,
      cluster: 'low_risk',
      verification_count: 6,
      last_verified_at: NOW,
    })
    expect(top.reputation_score).toBe(100)
  })
})

describe('reputationOf: trend and confidence', () => {
  it.each([
    ['declining', { cluster: 'low_risk', last_verified_at: daysAgo(30) }],
    ['stable', { cluster: 'low_risk', last_verified_at: daysAgo(3) }],
    ['improving', { cluster: 'low_risk', last_verified_at: NOW, verification_count: 3 }],
    ['improving', { cluster: 'low_risk', last_verified_at: daysAgo(8), previous_trust_score: 60 }],
    ['declining', { cluster: 'low_risk', last_verified_at: NOW, previous_trust_score: 90 }],
    ['stable', { cluster: 'sanctions_flagged', last_verified_at: daysAgo(300) }],
  ] as const)('is %s for %o', (trend, overrides) => {
    expect(reputationOf({ ...base, ...overrides }).trend).toBe(trend)
  })

  it('loses confidence with age down to the floor and gains some from repeats', () => {
    const fresh = reputationOf({ ...base, cluster: 'low_risk', last_verified_at: daysAgo(2) })
    const old = reputationOf({ ...base, cluster: 'low_risk', last_verified_at: daysAgo(7 + 70) })
    const ancient = reputationOf({ ...base, cluster: 'low_risk', last_verified_at: daysAgo(3650) })
    expect(fresh.confidence).toBe(1)
    expect(old.confidence).toBe(0.5)
    expect(ancient.confidence).toBe(0.2)
    const repeated = reputationOf({
      ...base,
      base_confidence: 0.5,
      cluster: 'low_risk',
      verification_count: 3,
      last_verified_at: NOW,
    })
    expect(repeated.confidence).toBe(0.54)
  })
})
