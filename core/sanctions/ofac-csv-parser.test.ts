import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { readShared } from '../../test/support/sanctions/shared-data.ts'
import { ListParseError } from './list-parse-error.ts'
import { parseOfacSdnCsv } from './ofac-csv-parser.ts'

const csv2024 = readShared('ofac/csv/2024-05-03/sdn.csv')
const set2021 = {
  sdn: readShared('ofac/csv/2021-07-07/sdn.csv'),
  alt: readShared('ofac/csv/2021-07-07/alt.csv'),
  add: readShared('ofac/csv/2021-07-07/add.csv'),
  comments: readShared('ofac/csv/2021-07-07/sdn_comments.csv'),
}

/** ent_nums read from the raw file with a regex, independent of csv-parse. */
function rawEntNums(bytes: Buffer): string[] {
  return [...bytes.toString('latin1').matchAll(/^(\d+),"/gm)].map((match) => match[1]!)
}

describe('parseOfacSdnCsv on the real sdn.csv of 2024-05-03', () => {
  const list = parseOfacSdnCsv({ sdn: csv2024 }, { publicationDate: '2024-05-03' })

  it('yields one entry per row with ent_num as entry_id', () => {
    expect(list.entry_count).toBe(14965)
    expect(list.entries.map((entry) => entry.entry_id)).toEqual(rawEntNums(csv2024))
    expect(list.publication_date).toBe('2024-05-03')
  })

  it('maps SDN_Type, with "-0-" meaning entity', () => {
    const counts: Record<string, number> = {}
    for (const entry of list.entries) counts[entry.entry_type] = (counts[entry.entry_type] ?? 0) + 1
    expect(counts).toEqual({ person: 6854, entity: 6884, vessel: 851, aircraft: 376 })
  })

  it('reads programmes, weak aliases, addresses and documents from a row', () => {
    const yan = list.entries.find((entry) => entry.entry_id === '25308')!
    expect(yan).toMatchObject({
      name: 'YAN, Xiaobing',
      entry_type: 'person',
      programmes: ['SDNTK'],
      countries: ['CN'],
    })
    expect(yan.aliases).toEqual([
      { name: 'ZHOU, William', kind: 'aka', quality: 'weak' },
      { name: 'YAN, Steven', kind: 'aka', quality: 'weak' },
    ])
    expect(yan.identifiers.filter((id) => id.type === 'crypto_address')).toHaveLength(6)
    expect(yan.identifiers).toContainEqual({
      type: 'national_id',
      value: '421002197703250019',
      label: "Citizen's Card Number",
      country: 'CN',
    })
  })

  it('reads every complete address mention and drops the incomplete last item of cut remarks', () => {
    const remarks = (parse(csv2024.toString('latin1').trimEnd().slice(0, -1)) as string[][]).map(
      (row) => row[11]!,
    )
    const mentions = (text: string) => (text.match(/Digital Currency Address - /g) ?? []).length
    const cut = remarks.filter((text) => text.length === 1000)
    expect(cut).toHaveLength(18)
    const complete =
      remarks.filter((text) => text.length < 1000).reduce((sum, text) => sum + mentions(text), 0) +
      cut.reduce((sum, text) => sum + mentions(text.slice(0, text.lastIndexOf(';'))), 0)
    expect(remarks.reduce((sum, text) => sum + mentions(text), 0)).toBe(295)
    const addresses = list.entries.flatMap((entry) =>
      entry.identifiers.filter((id) => id.type === 'crypto_address'),
    )
    expect(addresses).toHaveLength(complete)
    expect(addresses.map((address) => address.value)).not.toContain('1Gq')
    expect(list.warnings?.[0]).toMatch(/^18 Remarks cut at 1000 characters/)
  })

  it('never keeps the "-0-" placeholder or the 0x1A end marker', () => {
    const text = JSON.stringify(list.entries)
    expect(text).not.toContain('-0-')
    expect(text).not.toContain('\u001a')
  })
})

describe('parseOfacSdnCsv on the matching 2021-07-07 set with side files', () => {
  const list = parseOfacSdnCsv(set2021)

  it('adds the strong aliases of alt.csv', () => {
    const strong = list.entries.flatMap((entry) =>
      entry.aliases.filter((alias) => alias.quality === 'strong'),
    )
    const altRows = (set2021.alt.toString('latin1').match(/^\d+,/gm) ?? []).length
    expect(altRows).toBe(11910)
    // A few alt rows repeat the primary name or another alias of the same entry.
    expect(strong.length).toBeGreaterThan(11890)
    expect(list.entries.find((entry) => entry.entry_id === '306')!.aliases).toContainEqual({
      name: 'NATIONAL BANK OF CUBA',
      kind: 'aka',
      quality: 'strong',
    })
  })

  it('continues cut remarks from sdn_comments.csv, which restores the addresses', () => {
    const addresses = list.entries.flatMap((entry) =>
      entry.identifiers.filter((id) => id.type === 'crypto_address'),
    )
    expect(addresses).toHaveLength(97)
    const withoutComments = parseOfacSdnCsv({ sdn: set2021.sdn })
    const cut = withoutComments.entries.flatMap((entry) =>
      entry.identifiers.filter((id) => id.type === 'crypto_address'),
    )
    expect(cut.length).toBeLessThan(97)
    const li = list.entries.find((entry) => entry.entry_id === '28264')!
    expect(li.aliases.map((alias) => alias.name)).toEqual(['blackjack1987', 'khaleesi'])
  })

  it('takes countries from add.csv', () => {
    const cubaBank = list.entries.find((entry) => entry.entry_id === '306')!
    expect(cubaBank.countries).toContain('CH')
  })
})

describe('parseOfacSdnCsv on broken input', () => {
  it('throws when sdn.csv lacks its 0x1A end marker (cut at a line end)', () => {
    const text = csv2024.toString('latin1')
    const cutAtLine = text.slice(0, text.indexOf('\r\n', text.length / 2) + 2)
    expect(() => parseOfacSdnCsv({ sdn: cutAtLine })).toThrow(/0x1A end-of-file marker/)
    expect(parseOfacSdnCsv({ sdn: cutAtLine }, { requireEofMarker: false }).entry_count).toBeLessThan(14965)
  })

  it('throws when a download is cut inside a row', () => {
    const cut = csv2024.subarray(0, 2_000_123)
    expect(() => parseOfacSdnCsv({ sdn: cut }, { requireEofMarker: false })).toThrow(ListParseError)
  })

  it('throws for rows of the wrong shape and for an empty file', () => {
    expect(() => parseOfacSdnCsv({ sdn: '36,"AEROCARIBBEAN AIRLINES",-0- \r\n\u001a' })).toThrow(/columns/)
    expect(() => parseOfacSdnCsv({ sdn: '\u001a' })).toThrow(/no rows/)
    expect(() => parseOfacSdnCsv({ sdn: '<html>error</html>\u001a' })).toThrow(ListParseError)
  })

  it('throws when a side file refers to an entry that sdn.csv lacks', () => {
    expect(() => parseOfacSdnCsv({ sdn: set2021.sdn, comments: '99999999,"orphan"\r\n' })).toThrow(
      /unknown ent_num/,
    )
  })
})
