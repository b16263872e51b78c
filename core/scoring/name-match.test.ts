import { describe, expect, it } from 'vitest'
import { compareCompanyNames, coreNameTokens, normaliseCompanyName } from './name-match.ts'

describe('normaliseCompanyName', () => {
  it.each([
    ['Test B.V. Donald', 'test bv donald'],
    ['  ACME   Holding  N.V. ', 'acme holding nv'],
    ['Société Générale S.A.', 'societe generale sa'],
    ["Albert Heijn's Pakket-Dienst", 'albert heijns pakket dienst'],
    ['Jansen & Zonen', 'jansen en zonen'],
  ])('turns %j into %j', (input, expected) => {
    expect(normaliseCompanyName(input)).toBe(expected)
  })

  it('keeps the legal form so different legal entities stay different', () => {
    expect(normaliseCompanyName('Acme BV')).not.toBe(normaliseCompanyName('Acme NV'))
    expect(coreNameTokens('Acme BV')).toEqual(coreNameTokens('Acme NV'))
  })
})

describe('compareCompanyNames', () => {
  it.each([
    ['Test BV Donald', ['Test BV Donald'], 'match'],
    ['Test Donald B.V.', ['Test BV Donald'], 'match'],
    ['Veneco', ['Intergemeentelijke Vereniging Veneco', 'Veneco'], 'match'],
    ['Farys NV', ['Farys'], 'match'],
    ['Donald Test Holding', ['Test BV Donald'], 'partial'],
    ['Stichting Bolderbast', ['Test Stichting Bolderbast'], 'partial'],
    ['Coolblue', ['Test BV Donald', 'Test Donald Boot'], 'mismatch'],
    ['Anything', [null], 'mismatch'],
  ] as const)('compares %j with %j as %s', (given, candidates, verdict) => {
    expect(compareCompanyNames(given, candidates).verdict).toBe(verdict)
  })

  it('names the best candidate', () => {
    expect(compareCompanyNames('Veneco', ['Other name', 'Veneco']).best).toBe('Veneco')
  })
})
