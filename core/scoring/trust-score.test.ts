import { describe, expect, it } from 'vitest'
import type { SourceAssessment, SourceRole } from './factors.ts'
import {
  BASE_TRUST_SCORE,
  clusterForScore,
  confidenceOf,
  RECOMMENDATIONS,
  SOURCE_IMPORTANCE,
  scoreAssessments,
  UNAVAILABLE_PENALTY,
  unavailableAssessment,
} from './trust-score.ts'

const AT = '2026-01-05T10:00:00.000Z'

function clean(role: SourceRole, weight = 0, source: string = role): SourceAssessment {
  return {
    source,
    role,
    status: 'ok',
    fetched_at: AT,
    factors: [{ factor: `${role}_clean`, source, severity: 'info', weight, evidence: 'clean', status: 'ok' }],
  }
}

const ROLES = Object.keys(SOURCE_IMPORTANCE) as SourceRole[]

/** A full check where every source answered with nothing adverse (each clean weight as given). */
function fullCheck(cleanWeight: number): SourceAssessment[] {
  return ROLES.map((role) => clean(role, cleanWeight))
}

describe('scoreAssessments', () => {
  it('starts from the base score and adds the weights of all findings', () => {
    const result = scoreAssessments([clean('register', 20), clean('vat', -7), clean('sanctions', 10)])
    expect(result.trust_score).toBe(BASE_TRUST_SCORE + 23)
    expect(result.risk_factors.map((f) => f.weight)).toEqual([20, -7, 10])
  })

  it('applies uncertainty penalties after the cap, so a failed source lowers even a top score', () => {
    const top = scoreAssessments([clean('register', 80), clean('sanctions', 10), clean('vat', 10)])
    const vatDown = scoreAssessments([
      clean('register', 80),
      clean('sanctions', 10),
      unavailableAssessment('vies', 'vat', 'timeout', AT, 'VIES'),
    ])
    expect(top.trust_score).toBe(100)
    expect(vatDown.trust_score).toBe(100 + UNAVAILABLE_PENALTY.vat)
  })

  it('clamps the score to 0-100', () => {
    expect(scoreAssessments([clean('register', 500), clean('sanctions')]).trust_score).toBe(100)
    expect(scoreAssessments([clean('register', -500), clean('sanctions')]).trust_score).toBe(0)
  })

  // Clean weight 0 is the least favourable clean answer; any source failing must score below it.
  describe.each(ROLES)('when the %s source is unavailable', (role) => {
    for (const cleanWeight of [0, 5]) {
      it(`scores lower and less confident than a clean answer worth ${cleanWeight}`, () => {
        const answered = scoreAssessments(fullCheck(cleanWeight))
        const failed = scoreAssessments(
          fullCheck(cleanWeight).map((a) =>
            a.role === role ? unavailableAssessment(role, role, 'timeout', AT, role) : a,
          ),
        )
        expect(failed.trust_score).toBeLessThan(answered.trust_score)
        expect(failed.confidence).toBeLessThan(answered.confidence)
        expect(RECOMMENDATIONS.indexOf(failed.recommendation)).toBeGreaterThanOrEqual(
          RECOMMENDATIONS.indexOf(answered.recommendation),
        )
        expect(failed.sources.find((s) => s.source === role)).toEqual({
          source: role,
          status: 'unavailable',
          reason: 'timeout',
          fetched_at: AT,
        })
        expect(failed.sources_checked).toBe(answered.sources_checked - 1)
      })
    }

    it('also scores lower than not asking that source at all', () => {
      const without = scoreAssessments(fullCheck(0).filter((a) => a.role !== role))
      const failed = scoreAssessments(
        fullCheck(0).map((a) =>
          a.role === role ? unavailableAssessment(role, role, 'timeout', AT, role) : a,
        ),
      )
      expect(failed.trust_score).toBeLessThan(without.trust_score)
    })
  })

  it('keeps every uncertainty penalty negative', () => {
    for (const role of ROLES) expect(UNAVAILABLE_PENALTY[role]).toBeLessThan(0)
  })

  it('never recommends approval when the sanctions screen did not answer', () => {
    const result = scoreAssessments([
      clean('register', 40),
      clean('vat', 20),
      unavailableAssessment('sanctions', 'sanctions', 'sanctions_lists_not_loaded', AT, 'Sanctions'),
    ])
    expect(result.trust_score).toBeGreaterThanOrEqual(80)
    expect(result.recommendation).toBe('manual_review')
    expect(result.risk_factors).toContainEqual(
      expect.objectContaining({ factor: 'sanctions_unavailable', status: 'unavailable', severity: 'high' }),
    )
  })

  it('caps approval at monitoring when the register did not answer', () => {
    const result = scoreAssessments([
      unavailableAssessment('kvk', 'register', 'upstream_busy', AT, 'KVK'),
      clean('vat', 40),
      clean('sanctions', 10),
    ])
    expect(result.cluster).toBe('low_risk')
    expect(result.recommendation).toBe('approve_with_monitoring')
  })

  it('flags a sanctions match: cluster sanctions_flagged, score at most 10, reject', () => {
    const match: SourceAssessment = { ...clean('sanctions', -60), sanctions_match: true }
    const result = scoreAssessments([clean('register', 60), clean('vat', 30), match])
    expect(result.trust_score).toBe(10)
    expect(result.cluster).toBe('sanctions_flagged')
    expect(result.recommendation).toBe('reject')
  })

  it('counts only sources that answered in sources_checked and lists not-checked ones nowhere', () => {
    const result = scoreAssessments([
      clean('register'),
      { source: 'kbo', role: 'register', status: 'not_checked', factors: [] },
      unavailableAssessment('vies', 'vat', 'timeout', AT, 'VIES'),
      clean('sanctions'),
    ])
    expect(result.sources.map((s) => s.source)).toEqual(['register', 'vies', 'sanctions'])
    expect(result.sources_checked).toBe(2)
  })
})

describe('clusterForScore', () => {
  it.each([
    [100, 'low_risk'],
    [80, 'low_risk'],
    [79, 'moderate_risk'],
    [60, 'moderate_risk'],
    [59, 'elevated_risk'],
    [40, 'elevated_risk'],
    [39, 'high_risk'],
    [0, 'high_risk'],
  ])('puts %i in %s', (score, cluster) => {
    expect(clusterForScore(score)).toBe(cluster)
  })
})

describe('confidenceOf', () => {
  it('is 1 when every called source answered and both core sources were called', () => {
    expect(confidenceOf([clean('register'), clean('sanctions'), clean('vat')])).toBe(1)
  })

  it('counts a register that could not be asked against the confidence', () => {
    const withoutRegister = confidenceOf([clean('sanctions'), clean('country_risk')])
    expect(withoutRegister).toBe(Math.round(((3 + 1) / (3 + 1 + 3)) * 100) / 100)
  })

  it('drops by the importance of each source that did not answer', () => {
    const all = [clean('register'), clean('sanctions'), clean('vat'), clean('dns')]
    const vatDown = all.map((a) =>
      a.role === 'vat' ? unavailableAssessment('vat', 'vat', 'timeout', AT, 'v') : a,
    )
    expect(confidenceOf(vatDown)).toBe(Math.round(((3 + 3 + 0.5) / (3 + 3 + 2 + 0.5)) * 100) / 100)
  })
})
