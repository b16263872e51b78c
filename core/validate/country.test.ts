import { describe, expect, it } from 'vitest'
import {
  countryForVatPrefix,
  EU_MEMBER_STATES,
  isEeaMemberState,
  isEuMemberState,
  validateCountry,
  vatPrefixForCountry,
} from './country.ts'
import { ISO_3166_ALPHA2_CODES } from './iso-3166-alpha2.ts'

describe('validateCountry', () => {
  it('accepts assigned uppercase alpha-2 codes', () => {
    for (const code of ['NL', 'BE', 'DE', 'US', 'GB', 'GR', 'CW', 'SS', 'AX']) {
      expect(validateCountry(code)).toEqual({ ok: true, value: code })
    }
  })

  it('ships exactly the 249 assigned codes, sorted and unique', () => {
    expect(ISO_3166_ALPHA2_CODES).toHaveLength(249)
    expect(new Set(ISO_3166_ALPHA2_CODES).size).toBe(249)
    expect([...ISO_3166_ALPHA2_CODES].sort()).toEqual([...ISO_3166_ALPHA2_CODES])
  })

  it('knows every shipped code by an English region name (none is a typo)', () => {
    const names = new Intl.DisplayNames(['en'], { type: 'region' })
    const unnamed = ISO_3166_ALPHA2_CODES.filter((code) => names.of(code) === code)
    expect(unnamed).toEqual([])
  })

  it('rejects alpha-3 codes with a message naming alpha-3', () => {
    const result = validateCountry('NLD')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toMatch(/alpha-3/)
  })

  it('rejects lowercase and suggests the uppercase code', () => {
    expect(validateCountry('nl')).toEqual({ ok: false, message: 'must be uppercase ISO 3166-1 alpha-2 (NL)' })
    expect(validateCountry('Be').ok).toBe(false)
  })

  it('rejects reserved look-alikes UK, EL, EU and user-assigned XK with a hint', () => {
    for (const [code, hint] of [
      ['UK', /GB/],
      ['EL', /GR/],
      ['EU', /not a country/],
      ['XK', /user-assigned/],
    ] as const) {
      const result = validateCountry(code)
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.message).toMatch(hint)
    }
  })

  it('rejects unassigned codes, digits, whitespace and empty input', () => {
    for (const input of ['ZZ', 'QQ', 'AA', 'N1', ' NL', 'NL ', '', 'N'])
      expect(validateCountry(input).ok).toBe(false)
  })
})

describe('EU membership and VAT prefixes', () => {
  it('lists the 27 member states, all assigned codes', () => {
    expect(EU_MEMBER_STATES).toHaveLength(27)
    for (const code of EU_MEMBER_STATES) expect(validateCountry(code).ok).toBe(true)
  })

  it('treats NL, BE and GR as EU, GB, CH and NO as not', () => {
    expect(['NL', 'BE', 'GR'].map(isEuMemberState)).toEqual([true, true, true])
    expect(['GB', 'CH', 'NO', 'EL'].map(isEuMemberState)).toEqual([false, false, false, false])
  })

  it('adds Iceland, Liechtenstein and Norway for the EEA', () => {
    expect(['IS', 'LI', 'NO', 'NL'].map(isEeaMemberState)).toEqual([true, true, true, true])
    expect(isEeaMemberState('CH')).toBe(false)
  })

  it('maps Greece to EL and Northern Ireland to XI for VIES', () => {
    expect(vatPrefixForCountry('GR')).toBe('EL')
    expect(vatPrefixForCountry('NL')).toBe('NL')
    expect(vatPrefixForCountry('GB')).toBeNull()
    expect(vatPrefixForCountry('GB', { northernIreland: true })).toBe('XI')
    expect(vatPrefixForCountry('US')).toBeNull()
  })

  it('maps VIES prefixes back to countries', () => {
    expect(countryForVatPrefix('EL')).toBe('GR')
    expect(countryForVatPrefix('XI')).toBe('GB')
    expect(countryForVatPrefix('BE')).toBe('BE')
    expect(countryForVatPrefix('GR')).toBeNull()
    expect(countryForVatPrefix('US')).toBeNull()
  })
})
