import { describe, expect, it } from 'vitest'
import { rawUnRecords, readShared, UN_FILES } from '../../test/support/sanctions/shared-data.ts'
import { ListParseError } from './list-parse-error.ts'
import { parseUnXml } from './un-parser.ts'

const raw = readShared(UN_FILES['2026-02-27'])
const rawText = raw.toString('utf8')

describe('parseUnXml on the real UN list of 2026-02-27', () => {
  it('yields every INDIVIDUAL and ENTITY with DATAID as entry_id and the generation date', async () => {
    const list = await parseUnXml(raw)
    const rawRecords = rawUnRecords(rawText)
    expect(list.publication_date).toBe('2026-02-27')
    expect(list.entry_count).toBe(1003)
    expect(list.entries.map((entry) => entry.entry_id).sort()).toEqual(
      rawRecords.map((record) => record.id).sort(),
    )
    expect(list.entries.filter((entry) => entry.entry_type === 'person')).toHaveLength(
      (rawText.match(/<INDIVIDUAL>/g) ?? []).length,
    )
    expect(list.entries.filter((entry) => entry.entry_type === 'entity')).toHaveLength(
      (rawText.match(/<ENTITY>/g) ?? []).length,
    )
  })

  it('keeps the dates of birth (day, year or year range) and nationalities the list gives', async () => {
    const list = await parseUnXml(raw)
    const byId = new Map(list.entries.map((entry) => [entry.entry_id, entry]))
    let dated = 0
    for (const record of rawUnRecords(rawText)) {
      const expected = [
        ...record.block.matchAll(/<INDIVIDUAL_DATE_OF_BIRTH>([\s\S]*?)<\/INDIVIDUAL_DATE_OF_BIRTH>/g),
      ]
        .map(([, body]) => {
          const date = /<DATE>(\d{4}-\d{2}-\d{2})/.exec(body!)?.[1]
          const year = /<YEAR>(\d{4})<\/YEAR>/.exec(body!)?.[1]
          const from = /<FROM_YEAR>(\d{4})<\/FROM_YEAR>/.exec(body!)?.[1]
          const to = /<TO_YEAR>(\d{4})<\/TO_YEAR>/.exec(body!)?.[1]
          return date ?? year ?? (from && to ? (from === to ? from : `${from}/${to}`) : undefined)
        })
        .filter((value): value is string => value !== undefined)
      const entry = byId.get(record.id)!
      expect(entry.birth_dates ?? []).toEqual([...new Set(expected)])
      if (expected.length > 0) dated++
      const nationalities = record.block.includes('<NATIONALITY>') ? (entry.nationalities ?? []) : []
      for (const code of nationalities) expect(entry.countries).toContain(code)
    }
    expect(dated).toBeGreaterThan(600)
    expect(byId.get('6907993')).toMatchObject({ birth_dates: ['1971'], nationalities: ['CD'] })
  })

  it('keeps every name, alias and original-script name of a record', async () => {
    const list = await parseUnXml(raw)
    const byId = new Map(list.entries.map((entry) => [entry.entry_id, entry]))
    for (const record of rawUnRecords(rawText)) {
      const entry = byId.get(record.id)!
      const names = new Set([entry.name, ...entry.aliases.map((alias) => alias.name)])
      for (const name of record.names) expect(names).toContain(name)
    }
  })

  it('maps alias qualities, original script, list type, reference and listing date', async () => {
    const saddam = (await parseUnXml(raw)).entries.find((entry) => entry.reference === 'IQi.001')!
    expect(saddam).toMatchObject({
      entry_id: '6908048',
      entry_type: 'person',
      name: 'SADDAM HUSSEIN AL-TIKRITI',
      programmes: ['Iraq'],
      countries: ['IQ'],
      listed_on: '2003-06-27',
    })
    expect(saddam.aliases).toContainEqual({ name: 'Abu Ali', kind: 'aka', quality: 'low' })
    expect(saddam.aliases).toContainEqual({ name: 'صدام حسين التكريتي', kind: 'original_script' })
    const adf = (await parseUnXml(raw)).entries.find((entry) => entry.reference === 'CDe.001')!
    expect(adf.aliases).toContainEqual({ name: 'ADF/NALU', kind: 'fka' })
    expect(adf.aliases).toContainEqual({ name: 'Allied Democratic Forces', kind: 'aka' })
  })

  it('reads documents as identifiers with the issuing country', async () => {
    const list = await parseUnXml(raw)
    const withPassport = list.entries.filter((entry) =>
      entry.identifiers.some((id) => id.type === 'passport'),
    )
    expect(withPassport.length).toBeGreaterThan(100)
    const badege = list.entries.find((entry) => entry.reference === 'CDi.001')!
    expect(badege.countries).toEqual(['CD', 'RW'])
  })

  it('cuts a listing date with a time zone suffix to the date', async () => {
    const list = await parseUnXml(raw)
    expect(rawText).toContain('<LISTED_ON>2015-03-27-04:00</LISTED_ON>')
    expect(
      list.entries.every((entry) => entry.listed_on === null || /^\d{4}-\d{2}-\d{2}$/.test(entry.listed_on)),
    ).toBe(true)
  })
})

describe('parseUnXml on broken input', () => {
  it('throws ListParseError for a truncated download', async () => {
    await expect(parseUnXml(raw.subarray(0, 1_000_000))).rejects.toBeInstanceOf(ListParseError)
    await expect(parseUnXml(rawText.slice(0, rawText.lastIndexOf('</CONSOLIDATED_LIST>')))).rejects.toThrow(
      /malformed or truncated XML/,
    )
  })

  it('throws for an unclosed element inside a record (the damaged 2025-08-16 copy shape)', async () => {
    const damaged = rawText.replace('</COMMENTS1>', '')
    await expect(parseUnXml(damaged)).rejects.toThrow(ListParseError)
  })

  it('throws for a well-formed list without records or sections', async () => {
    await expect(
      parseUnXml('<CONSOLIDATED_LIST><INDIVIDUALS/><ENTITIES/></CONSOLIDATED_LIST>'),
    ).rejects.toThrow(/no INDIVIDUAL or ENTITY records/)
    await expect(parseUnXml('<CONSOLIDATED_LIST><INDIVIDUALS/></CONSOLIDATED_LIST>')).rejects.toThrow(
      /missing/,
    )
    await expect(parseUnXml('<sdnList/>')).rejects.toThrow(/expected <CONSOLIDATED_LIST>/)
  })

  it('throws for invalid UTF-8 bytes', async () => {
    const bytes = Buffer.concat([raw.subarray(0, 500), Buffer.from([0xff, 0xfe]), raw.subarray(500)])
    await expect(parseUnXml(bytes)).rejects.toThrow(/not valid UTF-8/)
  })

  it('throws for a duplicate DATAID', async () => {
    const record = /<INDIVIDUAL>[\s\S]*?<\/INDIVIDUAL>/.exec(rawText)![0]
    const doubled = rawText.replace(record, record + record)
    await expect(parseUnXml(doubled)).rejects.toThrow(/duplicate DATAID/)
  })
})
