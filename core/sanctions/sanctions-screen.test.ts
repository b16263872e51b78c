import { describe, expect, it } from 'vitest'
import {
  addressKey,
  buildSanctionsIndex,
  buildSanctionsIndexFromEntries,
  registrationKey,
} from './sanctions-index.ts'
import {
  MATCH_SCORES,
  SanctionsMatchSchema,
  screenAddress,
  screenName,
  screenRegistration,
} from './sanctions-screen.ts'
import type { ParsedList, SanctionsEntry } from './types.ts'

/** Small hand-written entries (fictitious) that isolate each screening rule. */
function entry(
  overrides: Partial<SanctionsEntry> & Pick<SanctionsEntry, 'list' | 'entry_id' | 'name'>,
): SanctionsEntry {
  return {
    entry_type: 'entity',
    aliases: [],
    programmes: ['TEST'],
    countries: [],
    listed_on: '2024-01-02',
    identifiers: [],
    ...overrides,
  }
}

const ofac: ParsedList = {
  list_key: 'ofac_sdn',
  publication_date: '2025-11-19',
  format: 'ofac_sdn_advanced_xml',
  entry_count: 4,
  entries: [
    entry({
      list: 'ofac_sdn',
      entry_id: '100',
      entry_type: 'person',
      name: 'PETROV, Ivan Sergeyevich',
      countries: ['RU'],
      aliases: [
        { name: 'Petrov, Vanya', kind: 'aka', quality: 'weak' },
        { name: 'Петров Иван Сергеевич', kind: 'original_script' },
      ],
    }),
    entry({
      list: 'ofac_sdn',
      entry_id: '200',
      name: 'EXAMPLE TRADING LLC',
      countries: ['AE'],
      aliases: [{ name: 'Example Trading', kind: 'aka', quality: 'strong' }],
      identifiers: [
        { type: 'crypto_address', value: '0x098B716B8Aaf21512996dC57EB0615e2383E2f96', currency: 'ETH' },
        { type: 'crypto_address', value: '0x098B716B8Aaf21512996dC57EB0615e2383E2f96', currency: 'USDT' },
        { type: 'crypto_address', value: 'TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq', currency: 'TRX' },
        { type: 'crypto_address', value: 'bc1qexampleaddressxyz0', currency: 'XBT' },
        { type: 'registration', value: '1027-739-120716', country: 'RU', label: 'Registration Number' },
      ],
    }),
    entry({
      list: 'ofac_sdn',
      entry_id: '300',
      name: 'Ivan Petrov',
      countries: ['UA'],
      identifiers: [{ type: 'registration', value: '1027739120716', country: 'UA' }],
    }),
    entry({
      list: 'ofac_sdn',
      entry_id: '400',
      name: 'Müller Holding GmbH',
      countries: ['DE'],
      aliases: [{ name: 'GmbH Müller Holding', kind: 'fka', quality: 'strong' }],
    }),
  ],
}

const un: ParsedList = {
  list_key: 'un',
  publication_date: '2026-02-27',
  format: 'un_xml',
  entry_count: 1,
  entries: [
    entry({
      list: 'un',
      entry_id: '6900001',
      entry_type: 'person',
      name: 'IVAN SERGEYEVICH PETROV',
      countries: ['RU'],
      aliases: [{ name: 'Ivan Petrov', kind: 'aka', quality: 'low' }],
      identifiers: [{ type: 'passport', value: '1027739120716' }],
    }),
  ],
}

const index = buildSanctionsIndex([ofac, un])

describe('screenName', () => {
  it('finds an exact normalised match on the primary name with score 1 and full match fields', () => {
    const result = screenName(index, 'petrov ivan sergeyevich')
    expect(result.truncated).toBe(false)
    expect(result.matches[0]).toEqual({
      list: 'OFAC SDN',
      list_key: 'ofac_sdn',
      entry_id: '100',
      entry_type: 'person',
      matched_name: 'PETROV, Ivan Sergeyevich',
      programmes: ['TEST'],
      countries: ['RU'],
      listed_on: '2024-01-02',
      match_score: 1,
      match_type: 'name_exact',
      basis: { field: 'primary_name', value: 'PETROV, Ivan Sergeyevich' },
    })
    for (const match of result.matches) expect(SanctionsMatchSchema.parse(match)).toEqual(match)
  })

  it('matches reordered words as name_tokens with a lower score', () => {
    const result = screenName(index, 'Ivan Sergeyevich Petrov')
    const ofacMatch = result.matches.find((match) => match.entry_id === '100')!
    expect(ofacMatch.match_type).toBe('name_tokens')
    expect(ofacMatch.match_score).toBe(MATCH_SCORES.primary.name_tokens)
    const unMatch = result.matches.find((match) => match.entry_id === '6900001')!
    expect(unMatch.match_type).toBe('name_exact')
  })

  it('scores aliases by their quality and reports the alias as basis', () => {
    const weak = screenName(index, 'Vanya Petrov').matches[0]!
    expect(weak.match_score).toBe(MATCH_SCORES.weakAlias.name_tokens)
    expect(weak.basis).toEqual({
      field: 'alias',
      value: 'Petrov, Vanya',
      alias_kind: 'aka',
      alias_quality: 'weak',
    })
    const strong = screenName(index, 'example trading').matches[0]!
    expect(strong.match_score).toBe(MATCH_SCORES.strongAlias.name_exact)
    expect(strong.matched_name).toBe('Example Trading')
  })

  it('matches an original-script name like the primary name', () => {
    const match = screenName(index, 'ПЕТРОВ ИВАН СЕРГЕЕВИЧ').matches[0]!
    expect(match).toMatchObject({ entry_id: '100', match_type: 'name_exact', match_score: 1 })
  })

  it('returns one match per entry, its best-scoring name', () => {
    // Entry 400 matches by its primary name reordered (0.9) and by its f.k.a. exactly (0.95).
    const result = screenName(index, 'GmbH Muller Holding')
    expect(result.matches).toHaveLength(1)
    expect(result.matches[0]).toMatchObject({
      entry_id: '400',
      match_type: 'name_exact',
      match_score: MATCH_SCORES.strongAlias.name_exact,
      basis: { field: 'alias', value: 'GmbH Müller Holding', alias_kind: 'fka' },
    })
  })

  it('lists each matching entry of every list once', () => {
    const result = screenName(index, 'Ivan Petrov')
    expect(result.matches.map((match) => [match.list_key, match.entry_id, match.match_score])).toEqual([
      ['ofac_sdn', '300', 1],
      ['un', '6900001', MATCH_SCORES.weakAlias.name_exact],
    ])
  })

  it('does not match a name that differs by a letter, a word, a transliteration or a legal form', () => {
    expect(screenName(index, 'Ivan Petrova').matches).toEqual([])
    expect(screenName(index, 'Ivan Sergeyevich').matches).toEqual([])
    expect(screenName(index, 'Mueller Holding GmbH').matches).toEqual([])
    expect(screenName(index, 'Müller Holding').matches).toEqual([])
    expect(screenName(index, 'Muller Holding GmbH').matches.map((match) => match.entry_id)).toEqual(['400'])
  })

  it('orders entries linked to the given country first and never drops the others', () => {
    const plain = screenName(index, 'Ivan Petrov')
    const ukraineFirst = screenName(index, 'Ivan Petrov', { country: 'UA' })
    const russiaFirst = screenName(index, 'Ivan Petrov', { country: 'ru' })
    expect(ukraineFirst.matches.map((match) => match.entry_id)).toEqual(['300', '6900001'])
    expect(russiaFirst.matches.map((match) => match.entry_id)).toEqual(['6900001', '300'])
    expect(screenName(index, 'Ivan Petrov', { country: 'FR' }).matches).toHaveLength(plain.matches.length)
  })

  it('caps the matches and reports truncation', () => {
    const capped = screenName(index, 'Ivan Petrov', { limit: 1 })
    expect(capped.matches).toHaveLength(1)
    expect(capped.truncated).toBe(true)
    expect(capped.total_matches).toBe(2)
    expect(screenName(index, 'Ivan Petrov', { limit: 2 }).truncated).toBe(false)
  })

  it('returns nothing for a name without letters or digits', () => {
    expect(screenName(index, ' --- ')).toEqual({ matches: [], truncated: false, total_matches: 0 })
  })
})

describe('screenAddress', () => {
  it('matches an EVM address in any letter case and reports every currency it is listed under', () => {
    for (const form of [
      '0x098B716B8Aaf21512996dC57EB0615e2383E2f96',
      '0x098b716b8aaf21512996dc57eb0615e2383e2f96',
      '0x098B716B8AAF21512996DC57EB0615E2383E2F96',
      '  0x098b716b8aaf21512996dc57eb0615e2383e2f96 ',
    ]) {
      const result = screenAddress(index, form)
      expect(result.matches).toHaveLength(1)
      expect(result.matches[0]).toMatchObject({
        entry_id: '200',
        match_type: 'crypto_address',
        match_score: 1,
        matched_name: 'EXAMPLE TRADING LLC',
        basis: { field: 'crypto_address', currencies: ['ETH', 'USDT'] },
      })
    }
  })

  it('matches base58 addresses only in their exact case, bech32 in any case', () => {
    expect(screenAddress(index, 'TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq').matches).toHaveLength(1)
    expect(screenAddress(index, 'tucstq7toftcjrrohk6rvhmos2mjlm5yzq').matches).toHaveLength(0)
    expect(screenAddress(index, 'BC1QEXAMPLEADDRESSXYZ0').matches).toHaveLength(1)
  })

  it('does not match an unknown or empty address', () => {
    expect(screenAddress(index, '0x0000000000000000000000000000000000000001').matches).toEqual([])
    expect(screenAddress(index, '').matches).toEqual([])
  })
})

describe('screenRegistration', () => {
  it('compares letters and digits only and scores a number of another country lower', () => {
    const result = screenRegistration(index, '1027739120716', 'RU')
    expect(result.matches.map((match) => [match.entry_id, match.match_score])).toEqual([
      ['200', MATCH_SCORES.registration],
      ['300', MATCH_SCORES.registrationOtherCountry],
    ])
    expect(result.matches[0]!.basis).toEqual({
      field: 'registration',
      value: '1027-739-120716',
      identifier_type: 'registration',
      identifier_country: 'RU',
    })
  })

  it('never excludes by country, only orders', () => {
    const ukraine = screenRegistration(index, '1027 7391 20716', 'UA')
    expect(ukraine.matches.map((match) => match.entry_id)).toEqual(['300', '200'])
    expect(screenRegistration(index, '1027739120716').matches.map((match) => match.match_score)).toEqual([
      1, 1,
    ])
  })

  it('ignores passports and other personal documents', () => {
    expect(screenRegistration(index, '1027739120716').matches.some((match) => match.list_key === 'un')).toBe(
      false,
    )
  })
})

describe('index building', () => {
  it('rebuilds from a JSON round trip of the entries with the same results', () => {
    const rebuilt = buildSanctionsIndexFromEntries(JSON.parse(JSON.stringify(index.entries)), index.lists)
    for (const query of ['Ivan Petrov', 'example trading', 'ПЕТРОВ ИВАН СЕРГЕЕВИЧ', 'nobody']) {
      expect(screenName(rebuilt, query)).toEqual(screenName(index, query))
    }
    expect(rebuilt.lists).toEqual([
      { list_key: 'ofac_sdn', list: 'OFAC SDN', publication_date: '2025-11-19', entry_count: 4 },
      {
        list_key: 'un',
        list: 'UN Security Council Consolidated List',
        publication_date: '2026-02-27',
        entry_count: 1,
      },
    ])
  })

  it('derives the lists from the entries when no versions are given', () => {
    const derived = buildSanctionsIndexFromEntries(un.entries)
    expect(derived.lists).toEqual([
      {
        list_key: 'un',
        list: 'UN Security Council Consolidated List',
        publication_date: null,
        entry_count: 1,
      },
    ])
  })

  it('refuses two versions of one list or duplicate entries', () => {
    expect(() => buildSanctionsIndex([un, un])).toThrow(/two versions/)
    expect(() => buildSanctionsIndexFromEntries([...un.entries, ...un.entries])).toThrow(/duplicate/)
  })

  it('normalises address and registration keys', () => {
    expect(addressKey(' 0xABCdef0123 ')).toBe('0xabcdef0123')
    expect(addressKey('1LrxsRd7zNuxPJcL5rttnoeJFy1y4AffYY')).toBe('1LrxsRd7zNuxPJcL5rttnoeJFy1y4AffYY')
    expect(registrationKey('hrb 12.345-b')).toBe('HRB12345B')
  })
})
