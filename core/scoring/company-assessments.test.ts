import { describe, expect, it } from 'vitest'
import { fakeCoverage } from '../../test/support/sanctions/coverage-fixtures.ts'
import { countryRisk } from '../reference/index.ts'
import type { KboEnterprise } from '../sources/kbo.ts'
import type { KvkCompany } from '../sources/kvk.ts'
import type { SourceResult } from '../sources/source-result.ts'
import {
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
} from './company-assessments.ts'

const NOW = new Date('2026-03-01T12:00:00.000Z')
const AT = NOW.toISOString()
const ok = <T>(source: string, data: T): SourceResult<T> => ({
  source,
  status: 'ok',
  data,
  fetched_at: AT,
  latency_ms: 3,
})
const down = (source: string, reason = 'timeout'): SourceResult<never> => ({
  source,
  status: 'unavailable',
  reason,
  fetched_at: AT,
  latency_ms: 3,
})
const names = (a: { factors: { factor: string }[] }) => a.factors.map((f) => f.factor)

const donald: KvkCompany = {
  found: true,
  kvk_number: '68750110',
  name: 'Test BV Donald',
  statutory_name: 'Test BV Donald',
  trade_names: ['Test BV Donald', 'Test Donald Boot'],
  active: true,
  registered_on: '2017-04-24',
  ended_on: null,
  legal_form: 'BeslotenVennootschap',
  legal_form_detail: 'Besloten Vennootschap',
  sbi_codes: [],
  address: null,
}

// Veneco, 0200.065.765: a real Belgian enterprise from the KBO open data.
const veneco: KboEnterprise = {
  found: true,
  enterprise_number: '0200.065.765',
  name: 'Intergemeentelijke Vereniging Veneco',
  names: [
    { language: 'nl', type: 'name', name: 'Intergemeentelijke Vereniging Veneco' },
    { language: 'nl', type: 'abbreviation', name: 'Veneco' },
  ],
  status: 'active',
  juridical_situation: { code: '000', description: 'Normale toestand' },
  juridical_form: { code: '416', description: null },
  type_of_enterprise: 'legal_person',
  start_date: '1960-08-09',
  address: null,
  nace_codes: [],
  dataset: { snapshot_date: '2025-05-04', extract_number: '140' },
}

describe('register assessments', () => {
  it('rewards an active KVK registration whose name matches', () => {
    const a = assessKvkCompany(ok('kvk', donald), 'Test BV Donald', NOW)
    expect(a.status).toBe('ok')
    expect(a.factors.map((f) => [f.factor, f.weight])).toEqual([
      ['registered_active', 20],
      ['register_name_match', 5],
    ])
    expect(a.factors[0]?.evidence).toContain('68750110')
  })

  it('penalises a KVK number that belongs to another name', () => {
    const a = assessKvkCompany(ok('kvk', donald), 'Coolblue', NOW)
    expect(a.factors).toContainEqual(
      expect.objectContaining({ factor: 'register_name_mismatch', weight: -15 }),
    )
  })

  it('marks an ended registration and an unknown number as high severity', () => {
    const ended = assessKvkCompany(
      ok('kvk', { ...donald, active: false, ended_on: '2020-12-31' }),
      'Test BV Donald',
      NOW,
    )
    expect(ended.factors[0]).toMatchObject({ factor: 'registration_ended', severity: 'high', weight: -35 })
    const missing = assessKvkCompany(
      ok('kvk', { ...donald, found: false, name: null, not_found_code: 'IPD0005' }),
      'X',
      NOW,
    )
    expect(missing.factors[0]).toMatchObject({ factor: 'not_in_register', weight: -30 })
    expect(missing.factors[0]?.evidence).toContain('IPD0005')
  })

  it('notes a registration younger than a year', () => {
    const young = assessKvkCompany(
      ok('kvk', { ...donald, registered_on: '2025-12-01' }),
      'Test BV Donald',
      NOW,
    )
    expect(names(young)).toContain('recently_registered')
  })

  it('reports an unavailable register with its penalty and reason, never as clean', () => {
    const a = assessKvkCompany(down('kvk', 'upstream_busy'), 'Test BV Donald', NOW)
    expect(a).toMatchObject({ status: 'unavailable', reason: 'upstream_busy', role: 'register' })
    expect(a.factors).toEqual([
      expect.objectContaining({ factor: 'kvk_unavailable', weight: -5, status: 'unavailable' }),
    ])
  })

  it('finds an active KVK registration by name and scores a missing one', () => {
    const hit = {
      kvk_number: '68750110',
      branch_number: null,
      name: 'Test BV Donald',
      type: 'hoofdvestiging',
      active: true,
      address: null,
    }
    expect(names(assessKvkSearch(ok('kvk', { total: 1, results: [hit] }), 'Test B.V. Donald'))).toEqual([
      'register_name_found',
    ])
    expect(names(assessKvkSearch(ok('kvk', { total: 0, results: [] }), 'Nobody BV'))).toEqual([
      'not_in_register',
    ])
    expect(
      names(assessKvkSearch(ok('kvk', { total: 1, results: [{ ...hit, active: false }] }), 'Test BV Donald')),
    ).toEqual(['registration_ended'])
  })

  it('verifies the real Belgian enterprise Veneco by its abbreviation', () => {
    const a = assessKboEnterprise(ok('kbo', veneco), 'Veneco', NOW)
    expect(a.factors.map((f) => f.factor)).toEqual(['registered_active', 'register_name_match'])
    expect(a.factors[0]?.evidence).toContain('0200.065.765')
    const stopped = assessKboEnterprise(ok('kbo', { ...veneco, status: 'stopped' }), 'Veneco', NOW)
    expect(names(stopped)).toContain('registration_ended')
  })
})

describe('VIES assessment', () => {
  const check = {
    valid: true,
    country_code: 'NL',
    vat_number: '859048153B01',
    name: 'VOORBEELD HANDEL B.V.',
    address: null,
    request_date: '2026-03-01',
    request_identifier: null,
    input_rejected: false,
  }
  it('rewards a valid number whose registered name matches', () => {
    expect(assessVies(ok('vies', check), 'Voorbeeld Handel BV', 'NL').factors.map((f) => f.weight)).toEqual([
      10, 5,
    ])
  })
  it('flags an invalid number, a foreign number and another name', () => {
    expect(names(assessVies(ok('vies', { ...check, valid: false }), 'x', 'NL'))).toEqual(['vat_invalid'])
    expect(names(assessVies(ok('vies', check), 'Voorbeeld Handel BV', 'BE'))).toContain(
      'vat_country_mismatch',
    )
    expect(names(assessVies(ok('vies', check), 'Totally Different', 'NL'))).toContain('vat_name_mismatch')
  })
  it('does not guess about a name VIES does not disclose', () => {
    expect(names(assessVies(ok('vies', { ...check, name: null }), 'Anything', 'NL'))).toEqual(['vat_valid'])
  })
})

describe('domain assessments', () => {
  const rdap = {
    domain: 'example.com',
    registered: true,
    registrar: 'RESERVED-Internet Assigned Numbers Authority',
    registrar_iana_id: '376',
    registered_at: '1995-08-14T04:00:00.000Z',
    expires_at: '2026-08-13T04:00:00.000Z',
    last_changed_at: null,
    domain_age_days: 11_157,
    status: [],
    nameservers: [],
    rdap_server: 'https://rdap.example/',
  }
  it.each([
    [11_157, 'domain_established', 5],
    [200, 'domain_young', 0],
    [20, 'domain_newly_registered', -10],
  ])('scores a domain %i days old as %s (%i)', (age, factor, weight) => {
    const a = assessRdap(ok('rdap', { ...rdap, domain_age_days: age }), NOW)
    expect(a.factors[0]).toMatchObject({ factor, weight })
  })
  it('flags an unregistered and an expiring domain', () => {
    expect(names(assessRdap(ok('rdap', { ...rdap, registered: false }), NOW))).toEqual([
      'domain_not_registered',
    ])
    expect(names(assessRdap(ok('rdap', { ...rdap, expires_at: '2026-03-10T00:00:00Z' }), NOW))).toContain(
      'domain_expiring',
    )
  })
  it('reads mail DNS and TLS', () => {
    const dns = assessDns(
      ok('dns', {
        domain: 'example.com',
        domain_exists: true,
        has_mx: true,
        mx: [{ exchange: 'mx1.example.com', priority: 10 }],
        null_mx: false,
        has_spf: true,
        spf: 'v=spf1 -all',
        has_dmarc: true,
        dmarc: 'v=DMARC1; p=reject',
        dmarc_policy: 'reject' as const,
        dmarc_domain: 'example.com',
      }),
    )
    expect(dns.factors.reduce((sum, f) => sum + f.weight, 0)).toBe(5)
    const tls = assessTls(
      ok('tls', {
        host: 'example.com',
        port: 443,
        address: '127.0.0.1',
        ssl_valid: false,
        invalid_reason: 'CERT_HAS_EXPIRED',
        issuer: null,
        subject: null,
        valid_from: null,
        valid_to: null,
        days_remaining: -2,
        protocol: 'TLSv1.3',
      }),
    )
    expect(tls.factors[0]).toMatchObject({ factor: 'tls_invalid', weight: -5 })
    expect(tls.factors[0]?.evidence).toContain('CERT_HAS_EXPIRED')
  })
})

describe('IBAN, country and sanctions assessments', () => {
  it('names the bank of a real Dutch IBAN (ABN AMRO) from the dated list', () => {
    const a = assessIban('NL91ABNA0417164300', 'NL', AT)
    expect(a.factors).toEqual([expect.objectContaining({ factor: 'iban_bank_identified', weight: 3 })])
    expect(a.factors[0]?.evidence).toContain('ABN AMRO')
  })

  it('names the bank of a Belgian IBAN (Belfius) and flags an unallocated Belgian code', () => {
    expect(assessIban('BE71096123456769', 'BE', AT).factors[0]?.evidence).toContain('BELFIUS')
    expect(names(assessIban('BE68539007547034', 'BE', AT))).toEqual(['iban_bank_unknown'])
  })

  it('flags an IBAN from another country than the entity', () => {
    expect(names(assessIban('NL91ABNA0417164300', 'BE', AT))).toEqual([
      'iban_country_mismatch',
      'iban_bank_identified',
    ])
  })

  it('weighs country risk from 0 (EU) down to -36 (risk 100)', () => {
    expect(countryRiskWeight(10)).toBe(0)
    expect(countryRiskWeight(100)).toBe(-36)
    const nl = countryRisk('NL')
    const ru = countryRisk('RU')
    if (!nl || !ru) throw new Error('reference data missing')
    expect(assessCountryRisk(nl, AT).factors[0]).toMatchObject({ weight: 0, severity: 'info' })
    expect(assessCountryRisk(ru, AT).factors[0]?.weight).toBeLessThan(-20)
  })

  it('turns screening outcomes into clear, flagged or unavailable', () => {
    const clear = assessSanctions({
      names: ['Veneco'],
      fetched_at: AT,
      result: {
        status: 'ok',
        possible_match: false,
        matches: [],
        list_dates: { 'OFAC SDN': '2026-02-27' },
        coverage: fakeCoverage(),
      },
    })
    expect(clear).toMatchObject({ status: 'ok', sanctions_match: false })
    expect(clear.factors[0]).toMatchObject({ factor: 'sanctions_clear', weight: 10 })
    const flagged = assessSanctions({
      names: ['Bank Melli Iran'],
      fetched_at: AT,
      result: {
        status: 'ok',
        possible_match: true,
        matches: [
          {
            list: 'OFAC SDN',
            list_key: 'ofac_sdn',
            entry_id: '12345',
            matched_name: 'BANK MELLI IRAN',
            match_type: 'name_exact',
            match_score: 1,
          },
        ],
        list_dates: {},
        coverage: fakeCoverage(),
      },
    })
    expect(flagged).toMatchObject({ sanctions_match: true })
    expect(flagged.factors[0]).toMatchObject({ severity: 'critical', weight: -60 })
    const none = assessSanctions({
      names: ['x'],
      fetched_at: AT,
      result: { status: 'unavailable', reason: 'sanctions_lists_not_loaded' },
    })
    expect(none).toMatchObject({ status: 'unavailable', reason: 'sanctions_lists_not_loaded' })
  })

  it('never calls a screen clear on a stale list: clear at the threshold, partial one day past it', () => {
    const now = new Date('2026-03-01T12:00:00Z')
    const screened = (date: string) =>
      assessSanctions({
        names: ['Veneco'],
        fetched_at: AT,
        result: {
          status: 'ok',
          possible_match: false,
          matches: [],
          list_dates: {},
          coverage: fakeCoverage(undefined, undefined, { date, now }),
        },
      })
    // Seven days old: the OFAC SDN threshold exactly, so current; the finding says nothing of staleness.
    const current = screened('2026-02-22')
    expect(current).toMatchObject({ status: 'ok', sanctions_match: false })
    expect(current.factors).toEqual([expect.objectContaining({ factor: 'sanctions_clear', weight: 10 })])
    expect(current.factors[0]!.evidence).not.toMatch(/stale/)
    // Eight days old: OFAC SDN is stale, so no clear points and the finding names the stale list.
    const stale = screened('2026-02-21')
    expect(stale).toMatchObject({ status: 'partial', sanctions_match: false })
    expect(stale.missing).toBe(
      'stale: OFAC SDN (published 8 days ago, more than the 7-day threshold for this list)',
    )
    expect(stale.factors).toEqual([
      expect.objectContaining({ factor: 'sanctions_partial', status: 'partial' }),
    ])
    expect(stale.factors[0]!.evidence).toContain('OFAC SDN 2026-02-21 (stale)')
  })

  it('never calls a screen clear when a promised list was not checked: partial, no clear points', () => {
    const partial = assessSanctions({
      names: ['Veneco'],
      fetched_at: AT,
      result: {
        status: 'ok',
        possible_match: false,
        matches: [],
        list_dates: { 'UN Security Council Consolidated List': '2026-01-02' },
        coverage: fakeCoverage(undefined, ['un'], { date: '2026-01-02' }),
      },
    })
    expect(partial).toMatchObject({ status: 'partial', sanctions_match: false })
    expect(partial.missing).toContain('OFAC SDN (load_failed')
    expect(partial.factors).toEqual([
      expect.objectContaining({
        factor: 'sanctions_partial',
        status: 'partial',
        weight: -5,
        severity: 'high',
      }),
    ])
    expect(partial.factors[0]?.evidence).toContain('UN Security Council Consolidated List 2026-01-02')
    expect(partial.factors[0]?.evidence).not.toContain('OFAC SDN 2026')
    // A match on the lists that were checked still flags, whatever is missing.
    const matched = assessSanctions({
      names: ['Example'],
      fetched_at: AT,
      result: {
        status: 'ok',
        possible_match: true,
        matches: [
          {
            list: 'UN Security Council Consolidated List',
            list_key: 'un',
            entry_id: '1',
            matched_name: 'EXAMPLE',
            match_type: 'name_exact',
            match_score: 1,
          },
        ],
        list_dates: {},
        coverage: fakeCoverage(undefined, ['un'], { date: '2026-01-02' }),
      },
    })
    expect(matched).toMatchObject({ status: 'partial', sanctions_match: true })
  })

  it('says a wallet is not listed only when the OFAC digital currency addresses were checked', () => {
    const screen = (loaded: ('ofac_sdn' | 'eu' | 'un')[]) =>
      assessWallet('0x0000000000000000000000000000000000000001', 'eth', AT, {
        status: 'ok',
        possible_match: false,
        matches: [],
        list_dates: {},
        coverage: fakeCoverage(['ofac_sdn'], loaded),
      })
    expect(screen(['eu', 'un']).factors[1]).toMatchObject({ factor: 'wallet_screen_partial' })
    expect(screen(['eu', 'un']).factors.map((f) => f.factor)).not.toContain('wallet_sanctions_clear')
    expect(screen(['ofac_sdn']).factors[1]).toMatchObject({ factor: 'wallet_sanctions_clear' })
  })
})
