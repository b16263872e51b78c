import { beforeAll, describe, expect, it } from 'vitest'
import { parsedSharedList } from '../../test/support/sanctions/parsed-lists.ts'
import {
  BIG_LIST_HOOK_TIMEOUT_MS,
  OFAC_ADVANCED,
  rawOfacAddressPairs,
  rawOfacFixedRefs,
  rawUnRecords,
  readBz2,
  readShared,
  UN_FILES,
} from '../../test/support/sanctions/shared-data.ts'
import { diffEntry, diffLists, type ListDiff } from './list-diff.ts'
import { normaliseName } from './name-normaliser.ts'
import { parseOfacSdnCsv } from './ofac-csv-parser.ts'
import type { ParsedList, SanctionsEntry } from './types.ts'
import { parseUnXml } from './un-parser.ts'

const base: SanctionsEntry = {
  list: 'ofac_sdn',
  entry_id: '1',
  entry_type: 'entity',
  name: 'EXAMPLE TRADING LLC',
  aliases: [{ name: 'Example Trading', kind: 'aka', quality: 'strong' }],
  programmes: ['SDGT', 'IRGC'],
  countries: ['AE', 'IR'],
  listed_on: '2020-01-01',
  identifiers: [
    { type: 'crypto_address', value: '0xabc', currency: 'ETH' },
    { type: 'registration', value: '123', country: 'AE' },
  ],
}

function list(entries: SanctionsEntry[], date: string): ParsedList {
  return {
    list_key: 'ofac_sdn',
    publication_date: date,
    format: 'ofac_sdn_csv',
    entries,
    entry_count: entries.length,
  }
}

describe('diffEntry', () => {
  it('reports no change for the same entry with lists in another order', () => {
    const reordered = {
      ...base,
      programmes: ['IRGC', 'SDGT'],
      countries: ['IR', 'AE'],
      identifiers: [...base.identifiers].reverse(),
    }
    expect(diffEntry(base, reordered)).toBeNull()
  })

  it('names the changed fields and what was added and removed', () => {
    const after: SanctionsEntry = {
      ...base,
      name: 'EXAMPLE TRADING L.L.C.',
      aliases: [{ name: 'Example Trading', kind: 'aka', quality: 'weak' }],
      programmes: ['SDGT'],
      identifiers: [
        { type: 'crypto_address', value: '0xabc', currency: 'ETH' },
        { type: 'crypto_address', value: 'TXyz', currency: 'TRX' },
        { type: 'registration', value: '123', country: 'AE' },
        { type: 'passport', value: 'P1' },
      ],
    }
    const change = diffEntry(base, after)!
    expect(change.fields).toEqual(['name', 'aliases', 'programmes', 'crypto_addresses', 'identifiers'])
    expect(change.aliases_added).toEqual([{ name: 'Example Trading', kind: 'aka', quality: 'weak' }])
    expect(change.aliases_removed).toEqual([{ name: 'Example Trading', kind: 'aka', quality: 'strong' }])
    expect(change.programmes_removed).toEqual(['IRGC'])
    expect(change.crypto_addresses_added).toEqual([
      { type: 'crypto_address', value: 'TXyz', currency: 'TRX' },
    ])
    expect(change.identifiers_added).toEqual([{ type: 'passport', value: 'P1' }])
    expect(change.before.name).toBe('EXAMPLE TRADING LLC')
    expect(change.after.name).toBe('EXAMPLE TRADING L.L.C.')
  })
})

describe('diffLists', () => {
  it('splits entries into added, removed, changed and unchanged by entry_id', () => {
    const other = { ...base, entry_id: '2', name: 'OTHER' }
    const changed = { ...base, countries: ['AE'] }
    const diff = diffLists(
      list([base, other], '2024-01-01'),
      list([changed, { ...base, entry_id: '3' }], '2024-01-02'),
    )
    expect(diff.added.map((entry) => entry.entry_id)).toEqual(['3'])
    expect(diff.removed.map((entry) => entry.entry_id)).toEqual(['2'])
    expect(diff.changed.map((change) => [change.entry_id, change.fields, change.countries_removed])).toEqual([
      ['1', ['countries'], ['IR']],
    ])
    expect(diff).toMatchObject({ from_date: '2024-01-01', to_date: '2024-01-02', unchanged_count: 0 })
  })

  it('refuses to diff two different lists', () => {
    const un: ParsedList = { ...list([], null as unknown as string), list_key: 'un' }
    expect(() => diffLists(list([base], '2024-01-01'), un)).toThrow(/cannot diff/)
  })
})

/** The raw text of each record, by id, to check that a reported change is a real change. */
function rawBlocksById(text: string, open: RegExp, close: string): Map<string, string> {
  const blocks = new Map<string, string>()
  for (const match of text.matchAll(open)) {
    const end = text.indexOf(close, match.index)
    blocks.set(match[1]!, (blocks.get(match[1]!) ?? '') + text.slice(match.index, end))
  }
  return blocks
}

describe('diffLists on the real OFAC SDN Advanced files, 2025-10-30 -> 2025-11-19', () => {
  let beforeText: string
  let afterText: string
  let diff: ListDiff

  beforeAll(async () => {
    const [beforeXml, afterXml] = await Promise.all([
      readBz2(OFAC_ADVANCED['2025-10-30']),
      readBz2(OFAC_ADVANCED['2025-11-19']),
    ])
    // Parsed by parseOfacAdvancedXml once per machine and parser version, not once per test file.
    const [before, after] = await Promise.all([
      parsedSharedList(OFAC_ADVANCED['2025-10-30']),
      parsedSharedList(OFAC_ADVANCED['2025-11-19']),
    ])
    beforeText = beforeXml.toString('utf8')
    afterText = afterXml.toString('utf8')
    diff = diffLists(before, after)
  }, BIG_LIST_HOOK_TIMEOUT_MS)

  it('adds and removes exactly the FixedRefs that the raw files add and remove (115 / 4)', () => {
    const rawBefore = rawOfacFixedRefs(beforeText)
    const rawAfter = rawOfacFixedRefs(afterText)
    const added = [...rawAfter].filter((id) => !rawBefore.has(id))
    const removed = [...rawBefore].filter((id) => !rawAfter.has(id))
    expect([added.length, removed.length]).toEqual([115, 4])
    expect(new Set(diff.added.map((entry) => entry.entry_id))).toEqual(new Set(added))
    expect(new Set(diff.removed.map((entry) => entry.entry_id))).toEqual(new Set(removed))
    const removedNames = diff.removed.map((entry) => normaliseName(entry.name))
    for (const name of ['KHATTAB, Anas Hasan', 'AL-JAWLANI, Abu Muhammad']) {
      expect(removedNames).toContain(normaliseName(name))
    }
    expect(diff.from_date).toBe('2025-10-30')
    expect(diff.to_date).toBe('2025-11-19')
  })

  it('adds exactly the raw files’ new digital currency addresses (66) and removes none', () => {
    const rawBefore = rawOfacAddressPairs(beforeText)
    const rawAfter = rawOfacAddressPairs(afterText)
    const rawAdded = [...rawAfter].filter((pair) => !rawBefore.has(pair))
    const rawRemoved = [...rawBefore].filter((pair) => !rawAfter.has(pair))
    const pair = (id: { currency?: string; value: string }) => `${id.currency} ${id.value}`
    const added = new Set([
      ...diff.added.flatMap((entry) =>
        entry.identifiers.filter((id) => id.type === 'crypto_address').map(pair),
      ),
      ...diff.changed.flatMap((change) => change.crypto_addresses_added.map(pair)),
    ])
    const removed = new Set([
      ...diff.removed.flatMap((entry) =>
        entry.identifiers.filter((id) => id.type === 'crypto_address').map(pair),
      ),
      ...diff.changed.flatMap((change) => change.crypto_addresses_removed.map(pair)),
    ])
    expect(rawAdded).toHaveLength(66)
    expect(added).toEqual(new Set(rawAdded))
    expect(removed).toEqual(new Set(rawRemoved))
    expect(removed.size).toBe(0)
    const byCurrency: Record<string, number> = {}
    for (const item of added) byCurrency[item.split(' ')[0]!] = (byCurrency[item.split(' ')[0]!] ?? 0) + 1
    expect(byCurrency).toEqual({ USDT: 53, TRX: 5, XBT: 3, ETH: 3, BNB: 1, SOL: 1 })
  })

  it('reports a common party as changed only when its raw records differ', () => {
    const parties = (text: string) =>
      rawBlocksById(text, /<DistinctParty FixedRef="(\d+)">/g, '</DistinctParty>')
    const entries = (text: string) =>
      rawBlocksById(text, /<SanctionsEntry ID="\d+" ProfileID="(\d+)"/g, '</SanctionsEntry>')
    const [partiesBefore, partiesAfter] = [parties(beforeText), parties(afterText)]
    const [entriesBefore, entriesAfter] = [entries(beforeText), entries(afterText)]
    expect(diff.changed.length).toBeGreaterThan(0)
    for (const change of diff.changed) {
      const id = change.entry_id
      const partyChanged = partiesBefore.get(id) !== partiesAfter.get(id)
      const sanctionsChanged = entriesBefore.get(id) !== entriesAfter.get(id)
      // Identity documents and locations live outside the party block; a change there shows
      // only in identifiers or countries.
      const outside = change.fields.every((field) => field === 'identifiers' || field === 'countries')
      expect(partyChanged || sanctionsChanged || outside, `${id}: ${change.fields}`).toBe(true)
    }
    // README: 3 common parties changed names or digital currency addresses.
    const namesOrAddresses = diff.changed.filter((change) =>
      change.fields.some((field) => field === 'name' || field === 'aliases' || field === 'crypto_addresses'),
    )
    expect(namesOrAddresses).toHaveLength(3)
    expect(diff.unchanged_count + diff.changed.length + diff.added.length).toBe(18367)
  })
})

describe('diffLists on the real OFAC SDN CSV files, 2024-04-26 -> 2024-05-03', () => {
  it('finds the 305 added and 8 removed ent_nums and changes only rows that differ', () => {
    const beforeBytes = readShared('ofac/csv/2024-04-26/sdn.csv')
    const afterBytes = readShared('ofac/csv/2024-05-03/sdn.csv')
    const diff = diffLists(parseOfacSdnCsv({ sdn: beforeBytes }), parseOfacSdnCsv({ sdn: afterBytes }))
    const rows = (bytes: Buffer) =>
      new Map([...bytes.toString('latin1').matchAll(/^(\d+),(.*)$/gm)].map((match) => [match[1]!, match[2]!]))
    const [rawBefore, rawAfter] = [rows(beforeBytes), rows(afterBytes)]
    const added = [...rawAfter.keys()].filter((id) => !rawBefore.has(id))
    const removed = [...rawBefore.keys()].filter((id) => !rawAfter.has(id))
    const differing = [...rawAfter.keys()].filter(
      (id) => rawBefore.has(id) && rawBefore.get(id) !== rawAfter.get(id),
    )
    expect([added.length, removed.length]).toEqual([305, 8])
    expect(diff.added.map((entry) => entry.entry_id)).toEqual(added)
    expect(diff.removed.map((entry) => entry.entry_id)).toEqual(removed)
    expect(diff.changed.map((change) => change.entry_id)).toEqual(differing)
    expect(diff.added.map((entry) => entry.name)).toContain('WUHAN GLOBAL SENSOR TECHNOLOGY CO., LTD.')
    expect(diff.removed.map((entry) => entry.name)).toContain('EMPEROR AVIATION LTD')
  })
})

describe('diffLists on the real UN lists, 2025-11-18 -> 2026-02-27', () => {
  it('finds the 4 added and 1 removed DATAIDs and changes only records that differ', async () => {
    const beforeText = readShared(UN_FILES['2025-11-18']).toString('utf8')
    const afterText = readShared(UN_FILES['2026-02-27']).toString('utf8')
    const diff = diffLists(await parseUnXml(beforeText), await parseUnXml(afterText))
    const [rawBefore, rawAfter] = [rawUnRecords(beforeText), rawUnRecords(afterText)].map(
      (records) => new Map(records.map((record) => [record.id, record.block])),
    ) as [Map<string, string>, Map<string, string>]
    const added = [...rawAfter.keys()].filter((id) => !rawBefore.has(id))
    const removed = [...rawBefore.keys()].filter((id) => !rawAfter.has(id))
    expect([added.length, removed.length]).toEqual([4, 1])
    expect(new Set(diff.added.map((entry) => entry.entry_id))).toEqual(new Set(added))
    expect(diff.removed.map((entry) => entry.entry_id)).toEqual(removed)
    expect(diff.added.map((entry) => entry.reference).sort()).toEqual([
      'SDi.007',
      'SDi.008',
      'SDi.009',
      'SDi.010',
    ])
    expect(diff.removed.map((entry) => [entry.reference, entry.name])).toEqual([
      ['IQi.074', 'MUNIR AL QUBAYSI'],
    ])
    for (const change of diff.changed) {
      expect(rawBefore.get(change.entry_id), change.entry_id).not.toBe(rawAfter.get(change.entry_id))
    }
  })
})
