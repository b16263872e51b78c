import { describe, expect, it } from 'vitest'
import { assessWalletRisk, decideVerdict, riskLevelOf, webScore } from './agent-assessment.ts'

const clean = {
  sanctioned: false,
  emptyAndUnused: false,
  isContract: false,
  walletAgentIds: ['1'],
  askedAgent: { agent_id: '1', registered: true, controlled: true },
}

describe('agent check rules', () => {
  it('fires no rule for a clean funded wallet that controls the asked agent, and proceeds', () => {
    const risk = assessWalletRisk(clean)
    expect(risk).toEqual({ risk_score: 0, risk_level: 'low', rules_fired: [], missing: [] })
    expect(decideVerdict({ sanctionsHit: false, unavailableParts: [], rulesFired: [] }).verdict).toBe(
      'proceed',
    )
  })

  it('blocks a sanctions hit whatever else is missing', () => {
    const risk = assessWalletRisk({ ...clean, sanctioned: true, walletAgentIds: null, askedAgent: null })
    expect(risk.risk_level).toBe('critical')
    expect(
      decideVerdict({ sanctionsHit: true, unavailableParts: ['balance'], rulesFired: risk.rules_fired }),
    ).toMatchObject({ verdict: 'block' })
  })

  it('reviews when a part is unavailable or a medium rule fired; a contract wallet alone proceeds', () => {
    expect(
      decideVerdict({ sanctionsHit: null, unavailableParts: ['sanctions'], rulesFired: [] }).verdict,
    ).toBe('review')
    const contract = assessWalletRisk({ ...clean, isContract: true })
    expect(contract.rules_fired.map((r) => r.rule)).toEqual(['wallet_is_contract'])
    expect(
      decideVerdict({ sanctionsHit: false, unavailableParts: [], rulesFired: contract.rules_fired }).verdict,
    ).toBe('proceed')
    const stranger = assessWalletRisk({
      ...clean,
      walletAgentIds: [],
      emptyAndUnused: true,
      askedAgent: undefined,
    })
    expect(stranger.rules_fired.map((r) => r.rule)).toEqual(['empty_wallet_no_history', 'no_agent_identity'])
    expect(stranger).toMatchObject({ risk_score: 45, risk_level: 'high' })
    expect(
      decideVerdict({ sanctionsHit: false, unavailableParts: [], rulesFired: stranger.rules_fired }).verdict,
    ).toBe('review')
  })

  it('reviews a part read only in part, saying so', () => {
    expect(
      decideVerdict({
        sanctionsHit: false,
        unavailableParts: [],
        partialParts: ['identity'],
        rulesFired: [],
      }),
    ).toEqual({ verdict: 'review', verdict_reasons: ['part_partial: identity was only partly read'] })
  })

  it('names the inputs it could not evaluate', () => {
    expect(
      assessWalletRisk({
        sanctioned: null,
        emptyAndUnused: null,
        isContract: null,
        walletAgentIds: null,
        askedAgent: null,
      }).missing,
    ).toEqual(['sanctions', 'identity', 'balance'])
  })

  it('maps scores to levels and computes the web score only when every probe answered', () => {
    expect([0, 19, 20, 39, 40, 99, 100].map(riskLevelOf)).toEqual([
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
      'critical',
    ])
    const full = {
      registered: true,
      ageDays: 4000,
      daysToExpiry: 200,
      hasMx: true,
      hasSpf: true,
      hasDmarc: true,
      sslValid: true,
    }
    expect(webScore(full)).toBe(100)
    expect(webScore({ ...full, ageDays: 100, sslValid: false, hasDmarc: false })).toBe(50)
    expect(webScore({ ...full, sslValid: null })).toBeNull()
  })
})
