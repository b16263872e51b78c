import { describe, expect, it } from 'vitest'
import { scoreAssessments } from '../scoring/trust-score.ts'
import { leadFlag } from './lead-flags.ts'

describe('sentences quoting upstream names', () => {
  it('a lead flag shows a bidirectional control from a register name as [U+202E]', () => {
    const flag = leadFlag('company_dissolved', 'register', 'KBO lists Acme \u202Efdp.exe as dissolved')
    expect(flag.message).toBe('KBO lists Acme [U+202E]fdp.exe as dissolved')
  })

  it('a recommendation reason quoting a source does too', () => {
    const trust = scoreAssessments([
      {
        source: 'sanctions',
        role: 'sanctions',
        status: 'unavailable',
        reason: 'list \u2067x\u2069 not loaded',
        factors: [],
      } as never,
    ])
    expect(trust.recommendation_reasons.join(' ')).toContain('list [U+2067]x[U+2069] not loaded')
    expect(trust.recommendation_reasons.join(' ')).not.toMatch(/[\u2066-\u2069]/)
  })
})
