import { describe, expect, it } from 'vitest'
import { EU_MEMBER_STATES, ISO_3166_ALPHA2_CODES, isCountryCode } from '../validate/index.ts'
import { COUNTRY_RISK_AS_OF, COUNTRY_RISK_LISTS, countryRisk, riskLevelForScore } from './country-risk.ts'
import {
  COMPREHENSIVE_SANCTIONS,
  EU_EEA_MEMBERS,
  EU_HIGH_RISK_THIRD_COUNTRIES,
  FATF_CALL_FOR_ACTION,
  FATF_INCREASED_MONITORING,
  FATF_MEMBERS,
} from './country-risk-lists.ts'

describe('country lists', () => {
  it('are dated, sourced and contain only assigned ISO codes without duplicates', () => {
    for (const list of COUNTRY_RISK_LISTS) {
      expect(list.as_of, list.id).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(list.source_url, list.id).toMatch(/^https:\/\//)
      expect(
        list.countries.filter((c) => !isCountryCode(c)),
        list.id,
      ).toEqual([])
      expect(new Set(list.countries).size, list.id).toBe(list.countries.length)
    }
  })

  it('match the published sizes: 3 black, 22 grey (June 2026), 26 EU high-risk (January 2026)', () => {
    expect([...FATF_CALL_FOR_ACTION.countries].sort()).toEqual(['IR', 'KP', 'MM'])
    expect(FATF_INCREASED_MONITORING.countries).toHaveLength(22)
    expect(EU_HIGH_RISK_THIRD_COUNTRIES.countries).toHaveLength(26)
  })

  it('reflect the 2026 changes: Kuwait, PNG, Iraq, Bosnia grey; Algeria, Namibia off the grey list; Russia on the EU list', () => {
    for (const code of ['KW', 'PG', 'IQ', 'BA']) expect(FATF_INCREASED_MONITORING.countries).toContain(code)
    for (const code of ['DZ', 'NA', 'NG', 'ZA', 'MZ', 'BF'])
      expect(FATF_INCREASED_MONITORING.countries).not.toContain(code)
    expect(EU_HIGH_RISK_THIRD_COUNTRIES.countries).toContain('RU')
    for (const code of ['NG', 'ZA', 'ML', 'TZ', 'MZ', 'BF'])
      expect(EU_HIGH_RISK_THIRD_COUNTRIES.countries).not.toContain(code)
  })

  it('list the EU-27 plus IS, LI and NO as EU/EEA, consistent with the validators', () => {
    expect([...EU_EEA_MEMBERS.countries].sort()).toEqual([...EU_MEMBER_STATES, 'IS', 'LI', 'NO'].sort())
  })

  it('leave Syria off the comprehensive sanctions list since the 2025 US termination, and Russia off the FATF members', () => {
    expect(COMPREHENSIVE_SANCTIONS.countries).not.toContain('SY')
    expect(FATF_MEMBERS.countries).not.toContain('RU')
    expect(FATF_MEMBERS.countries).toHaveLength(37)
  })

  it('carry as the data-set date the newest list date', () => {
    expect(COUNTRY_RISK_AS_OF).toBe('2026-06-19')
  })
})

describe('countryRisk', () => {
  it('scores EU/EEA members low at 10 with the membership as the only factor', () => {
    const nl = countryRisk('NL')
    expect(nl).toMatchObject({ country: 'NL', risk_score: 10, risk_level: 'low', as_of: COUNTRY_RISK_AS_OF })
    expect(nl?.factors.map((f) => f.list)).toEqual(['eu_eea_member'])
    expect(countryRisk('NO')?.risk_score).toBe(10)
  })

  it('scores unlisted FATF members 20 (low) and other unlisted countries 30 (medium)', () => {
    expect(countryRisk('US')).toMatchObject({ risk_score: 20, risk_level: 'low' })
    expect(countryRisk('GB')).toMatchObject({ risk_score: 20, risk_level: 'low' })
    const thailand = countryRisk('TH')
    expect(thailand).toMatchObject({ risk_score: 30, risk_level: 'medium' })
    expect(thailand?.factors).toEqual([])
  })

  it('scores the FATF black list very high, adding 5 per further list', () => {
    expect(countryRisk('KP')).toMatchObject({ risk_score: 100, risk_level: 'very_high' })
    expect(countryRisk('IR')).toMatchObject({ risk_score: 100, risk_level: 'very_high' })
    expect(countryRisk('MM')).toMatchObject({ risk_score: 95, risk_level: 'very_high' })
  })

  it('scores comprehensive sanctions very high and sectoral sanctions high', () => {
    expect(countryRisk('CU')).toMatchObject({ risk_score: 85, risk_level: 'very_high' })
    expect(countryRisk('BY')).toMatchObject({ risk_score: 60, risk_level: 'high' })
    expect(countryRisk('RU')).toMatchObject({ risk_score: 75, risk_level: 'high' })
  })

  it('scores grey-listed and EU high-risk countries high, even an EU member on the grey list', () => {
    expect(countryRisk('TT')).toMatchObject({ risk_score: 70, risk_level: 'high' })
    expect(countryRisk('KW')).toMatchObject({ risk_score: 65, risk_level: 'high' })
    expect(countryRisk('MC')).toMatchObject({ risk_score: 75, risk_level: 'high' })
    const bulgaria = countryRisk('BG')
    expect(bulgaria).toMatchObject({ risk_score: 65, risk_level: 'high' })
    expect(bulgaria?.factors.map((f) => f.list)).toEqual(['fatf_increased_monitoring'])
  })

  it('names each list behind a score with its source and date', () => {
    const syria = countryRisk('SY')
    expect(syria?.factors).toEqual([
      {
        list: 'eu_high_risk_third_countries',
        name: EU_HIGH_RISK_THIRD_COUNTRIES.name,
        source: EU_HIGH_RISK_THIRD_COUNTRIES.source,
        as_of: '2026-01-29',
        effect: 'raises',
      },
      {
        list: 'fatf_increased_monitoring',
        name: FATF_INCREASED_MONITORING.name,
        source: FATF_INCREASED_MONITORING.source,
        as_of: '2026-06-19',
        effect: 'raises',
      },
    ])
  })

  it('returns null for codes that are not assigned ISO alpha-2 codes', () => {
    for (const code of ['XX', 'UK', 'nl', 'NLD', '']) expect(countryRisk(code)).toBeNull()
  })

  it('gives every assigned country a score in 0-100 whose level matches the thresholds', () => {
    for (const code of ISO_3166_ALPHA2_CODES) {
      const risk = countryRisk(code)
      expect(risk, code).not.toBeNull()
      if (risk === null) continue
      expect(risk.risk_score).toBeGreaterThanOrEqual(0)
      expect(risk.risk_score).toBeLessThanOrEqual(100)
      expect(risk.risk_level).toBe(riskLevelForScore(risk.risk_score))
      const listed = risk.factors.some((f) => f.effect === 'raises')
      expect(risk.risk_score >= 60, code).toBe(listed)
    }
  })

  it('maps scores to levels at the documented thresholds', () => {
    expect([0, 24, 25, 49, 50, 79, 80, 100].map(riskLevelForScore)).toEqual([
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
      'very_high',
      'very_high',
    ])
  })
})
