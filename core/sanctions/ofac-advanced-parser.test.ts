import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { parsedSharedList } from '../../test/support/sanctions/parsed-lists.ts'
import {
  BIG_LIST_HOOK_TIMEOUT_MS,
  OFAC_ADVANCED,
  rawOfacAddressPairs,
  rawOfacFixedRefs,
  rawOfacParties,
  readBz2,
  sanctionsDataPath,
  spreadSample,
} from '../../test/support/sanctions/shared-data.ts'
import { ListParseError } from './list-parse-error.ts'
import { tokenSortedKey } from './name-normaliser.ts'
import { parseOfacAdvancedXml } from './ofac-advanced-parser.ts'
import type { ParsedList, SanctionsEntry } from './types.ts'

/**
 * The real SDN Advanced XML of 2025-11-19 (README: 18,367 parties), parsed by parseOfacAdvancedXml
 * once per machine and parser version (parsedSharedList), not once per test file.
 */
let xml: Buffer
let text: string
let list: ParsedList
let byId: Map<string, SanctionsEntry>

beforeAll(async () => {
  xml = await readBz2(OFAC_ADVANCED['2025-11-19'])
  text = xml.toString('utf8')
  list = await parsedSharedList(OFAC_ADVANCED['2025-11-19'])
  byId = new Map(list.entries.map((entry) => [entry.entry_id, entry]))
}, BIG_LIST_HOOK_TIMEOUT_MS)

describe('parseOfacAdvancedXml on the real list of 2025-11-19', () => {
  it('yields one entry per DistinctParty, keyed by FixedRef, with the DateOfIssue', () => {
    expect(list.format).toBe('ofac_sdn_advanced_xml')
    expect(list.publication_date).toBe('2025-11-19')
    expect(list.entry_count).toBe(18367)
    expect(new Set(byId.keys())).toEqual(rawOfacFixedRefs(text))
  })

  it('resolves party types by reference text (README: 9,359 / 7,303 / 1,370 / 335)', () => {
    const counts: Record<string, number> = {}
    for (const entry of list.entries) counts[entry.entry_type] = (counts[entry.entry_type] ?? 0) + 1
    expect(counts).toEqual({ entity: 9359, person: 7303, vessel: 1370, aircraft: 335 })
  })

  it('keeps every documented name of every party, in any script, as its name or an alias', () => {
    for (const party of rawOfacParties(text)) {
      const entry = byId.get(party.id)!
      const keys = new Set([entry.name, ...entry.aliases.map((alias) => alias.name)].map(tokenSortedKey))
      for (const name of party.names) expect(keys, `${party.id}: ${name}`).toContain(tokenSortedKey(name))
    }
  })

  it('joins person names like the SDN CSV: "Surname, Given names"', () => {
    expect(byId.get('36026')!.name).toBe('Karimian, Mohammad Sadegh')
    expect(byId.get('24063')!.name).toBe('KOSTIN, Andrey Leonidovich')
    // Spanish surnames: patronymic + matronymic before the comma when there is no Last Name part.
    expect(byId.get('8150')!.name).toBe('CASTELLANOS GARZON, Henry')
    expect(byId.get('8150')!.aliases).toContainEqual({ name: 'Romana, Edison', kind: 'aka', quality: 'weak' })
  })

  it('maps an entity with its Latin variant, aliases, addresses, registration and countries', () => {
    const garantex = byId.get('36025')!
    expect(garantex).toMatchObject({
      entry_type: 'entity',
      name: 'GARANTEX EUROPE OU',
      programmes: ['CYBER4', 'RUSSIA-EO14024'],
      listed_on: '2022-04-05',
    })
    expect(garantex.aliases).toEqual([
      { name: 'GARANTEX EUROPE OÜ' },
      { name: 'Garantex', kind: 'aka', quality: 'strong' },
    ])
    expect(garantex.countries).toContain('EE')
    expect(garantex.identifiers).toContainEqual({
      type: 'crypto_address',
      value: '0x7FF9cFad3877F21d41Da833E2F775dB0569eE3D9',
      currency: 'ETH',
    })
    expect(garantex.identifiers).toContainEqual({
      type: 'registration',
      value: '14850239',
      country: 'EE',
      label: 'Business Registration Number',
    })
  })

  it('reads every digital currency address, with its currency, as the raw file lists them', () => {
    const pairs = new Set(
      list.entries.flatMap((entry) =>
        entry.identifiers
          .filter((id) => id.type === 'crypto_address')
          .map((id) => `${id.currency} ${id.value}`),
      ),
    )
    expect(pairs.size).toBe(758)
    expect(pairs).toEqual(rawOfacAddressPairs(text))
  })

  it("matches brave-intl's derived per-currency address lists exactly", () => {
    for (const currency of ['XBT', 'ETH', 'USDT', 'TRX', 'LTC', 'XMR', 'SOL', 'BNB', 'ARB', 'BSC', 'USDC']) {
      const derived = readFileSync(
        sanctionsDataPath(`ofac/dca_lists_derived/2025-11-19/sanctioned_addresses_${currency}.txt`),
        'utf8',
      )
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
      const parsed = new Set(
        list.entries.flatMap((entry) =>
          entry.identifiers.filter((id) => id.currency === currency).map((id) => id.value),
        ),
      )
      expect(parsed, currency).toEqual(new Set(derived))
    }
  })

  it('takes programmes and the SDN listing date from SanctionsEntries, as the raw file has them', () => {
    for (const entry of spreadSample(list.entries, 60)) {
      const block = new RegExp(
        `<SanctionsEntry ID="\\d+" ProfileID="${entry.entry_id}" ListID="1550">([\\s\\S]*?)</SanctionsEntry>`,
      ).exec(text)![1]!
      const programmes = [
        ...block.matchAll(/<SanctionsMeasure [^>]*SanctionsTypeID="1">\s*<Comment>([^<]+)</g),
      ].map((match) => match[1])
      for (const programme of programmes) expect(entry.programmes).toContain(programme)
      const dates = [
        ...block.matchAll(/<Date [^>]*>\s*<Year>(\d+)<\/Year>\s*<Month>(\d+)<\/Month>\s*<Day>(\d+)<\/Day>/g),
      ].map((match) => `${match[1]}-${match[2]!.padStart(2, '0')}-${match[3]!.padStart(2, '0')}`)
      expect(entry.listed_on).toBe(dates.sort()[0])
    }
  })

  it('keeps entries compact and plain JSON', () => {
    const json = JSON.stringify(list.entries)
    expect(JSON.parse(json)).toEqual(list.entries)
    expect(json.length).toBeLessThan(12_000_000)
  })
})

describe('parseOfacAdvancedXml on broken input', () => {
  /** The real file's DateOfIssue and reference tables (the sections before Locations). */
  const head = () => text.slice(0, text.indexOf('<Locations>'))

  it('throws ListParseError for a download cut in the middle', async () => {
    await expect(parseOfacAdvancedXml(xml.subarray(0, 5_000_000))).rejects.toBeInstanceOf(ListParseError)
  })

  /** A small but complete real document: the first three parties and their sanctions entries. */
  const miniDocument = () => {
    const parties = [...text.matchAll(/<DistinctParty FixedRef="(\d+)">[\s\S]*?<\/DistinctParty>/g)].slice(
      0,
      3,
    )
    const sanctions = parties.map(
      (party) =>
        new RegExp(`<SanctionsEntry ID="\\d+" ProfileID="${party[1]}"[\\s\\S]*?</SanctionsEntry>`).exec(
          text,
        )![0],
    )
    const mini = `${head()}<DistinctParties>${parties.map((party) => party[0]).join('')}</DistinctParties><SanctionsEntries>${sanctions.join('')}</SanctionsEntries></Sanctions>`
    return { mini, ids: parties.map((party) => party[1]!) }
  }

  it('parses a complete small excerpt but throws when it is cut just before the closing root tag', async () => {
    const { mini, ids } = miniDocument()
    const parsed = await parseOfacAdvancedXml(mini)
    expect(parsed.entries.map((entry) => entry.entry_id)).toEqual(ids)
    expect(parsed.entries.map((entry) => entry.programmes)).toEqual(ids.map((id) => byId.get(id)!.programmes))
    const cut = mini.slice(0, mini.lastIndexOf('</Sanctions>'))
    await expect(parseOfacAdvancedXml(cut)).rejects.toThrow(/malformed or truncated XML/)
  })

  it('throws for a mismatched tag inside a party', async () => {
    const broken = `${head()}<DistinctParties><DistinctParty FixedRef="1"><Profile ID="1" PartySubTypeID="3"></Profil></DistinctParty></DistinctParties></Sanctions>`
    await expect(parseOfacAdvancedXml(broken)).rejects.toThrow(ListParseError)
  })

  it('throws for a well-formed file that lacks a section or has no parties', async () => {
    await expect(parseOfacAdvancedXml(`${head()}</Sanctions>`)).rejects.toThrow(/missing <DistinctParties>/)
    await expect(
      parseOfacAdvancedXml(
        `${head()}<DistinctParties></DistinctParties><SanctionsEntries></SanctionsEntries></Sanctions>`,
      ),
    ).rejects.toThrow(/no DistinctParty entries/)
  })

  it('throws for another XML document', async () => {
    await expect(parseOfacAdvancedXml('<sdnList><sdnEntry/></sdnList>')).rejects.toThrow(
      /expected <Sanctions>/,
    )
  })

  it('throws for a party without a primary name', async () => {
    const party = `<DistinctParties><DistinctParty FixedRef="1"><Profile ID="1" PartySubTypeID="3"><Identity ID="9"></Identity></Profile></DistinctParty></DistinctParties><SanctionsEntries></SanctionsEntries></Sanctions>`
    await expect(parseOfacAdvancedXml(`${head()}${party}`)).rejects.toThrow(/has no primary name/)
  })
})
