import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EU_LEGACY_FILE, rawEuLegacyEntities, readShared } from '../../test/support/sanctions/shared-data.ts'
import { parseEuXml } from './eu-parser.ts'
import { ListParseError } from './list-parse-error.ts'

const fsfFixture = readFileSync(new URL('./fixtures/eu-fsf-handmade.xml', import.meta.url))

describe('parseEuXml on the hand-made FSF 1.1 excerpt', () => {
  it('reads the generation date, detects FSF 1.1 and yields every sanctionEntity', async () => {
    const list = await parseEuXml(fsfFixture)
    expect(list.format).toBe('eu_fsf_xml')
    expect(list.list_key).toBe('eu')
    expect(list.publication_date).toBe('2026-03-02')
    expect(list.entries.map((entry) => entry.entry_id)).toEqual(['900101', '900102', '900103', '900104'])
    expect(list.entry_count).toBe(4)
  })

  it('maps a person: primary name, original-script, weak and part-built aliases, documents', async () => {
    const person = (await parseEuXml(fsfFixture)).entries[0]!
    expect(person).toEqual({
      list: 'eu',
      entry_id: '900101',
      reference: 'EU.9001.11',
      entry_type: 'person',
      name: 'Ivan Petrovich Testov',
      aliases: [
        { name: 'Иван Петрович Тестов', kind: 'original_script', quality: 'strong' },
        { name: 'Ιωάννης Τέστοφ', kind: 'original_script', quality: 'strong' },
        { name: 'Vanya Testov', kind: 'aka', quality: 'weak' },
        { name: 'Ivan Testoff', kind: 'aka', quality: 'strong' },
      ],
      programmes: ['UKR'],
      countries: ['RU'],
      listed_on: '2022-02-28',
      identifiers: [
        { type: 'passport', value: '720000001', country: 'RU', label: 'National passport' },
        { type: 'registration', value: '770000000001', country: 'RU', label: 'Fiscal code' },
      ],
      birth_dates: ['1961-04-12'],
      nationalities: ['RU'],
    })
  })

  it('maps an enterprise with several regulations, addresses and registration numbers', async () => {
    const enterprise = (await parseEuXml(fsfFixture)).entries[1]!
    expect(enterprise.entry_type).toBe('entity')
    expect(enterprise.name).toBe('Example Avionics Joint Stock Company')
    expect(enterprise.programmes).toEqual(['RUS', 'UKR'])
    expect(enterprise.countries).toEqual(['RU', 'BY'])
    expect(enterprise.listed_on).toBe('2023-06-23')
    expect(enterprise.identifiers.map((identifier) => [identifier.type, identifier.value])).toEqual([
      ['registration', '1 0 2 7 7 0 0 0 0 0 0 0 1'],
      ['registration', '7700000002'],
    ])
    expect(enterprise.aliases.map((alias) => [alias.name, alias.kind, alias.quality])).toEqual([
      ['Акционерное общество «Пример Авионика»', 'original_script', 'strong'],
      ['AO Example Avionics', 'aka', 'strong'],
      ['Exampl Avionika', 'aka', 'weak'],
    ])
  })

  it('falls back to the earliest regulation date and skips the unknown country code 00', async () => {
    const foundation = (await parseEuXml(fsfFixture)).entries[2]!
    expect(foundation.listed_on).toBe('2011-05-06')
    expect(foundation.countries).toEqual(['CH'])
    expect(foundation.programmes).toEqual(['AQD'])
  })

  it('throws ListParseError when the FSF file is truncated', async () => {
    const text = fsfFixture.toString('utf8')
    await expect(parseEuXml(text.slice(0, Math.floor(text.length * 0.6)))).rejects.toThrow(ListParseError)
    await expect(parseEuXml(text.slice(0, text.lastIndexOf('</export>')))).rejects.toThrow(
      /malformed or truncated/,
    )
  })

  it('throws when an export holds no sanctionEntity', async () => {
    const empty =
      '<export xmlns="http://eu.europa.ec/fpi/fsd/export" generationDate="2026-01-01T00:00:00Z"></export>'
    await expect(parseEuXml(empty)).rejects.toThrow(/no sanction entities/)
  })

  it('throws when a sanctionEntity has no name', async () => {
    const nameless =
      '<export generationDate="2026-01-01"><sanctionEntity logicalId="1"><subjectType code="person"/></sanctionEntity></export>'
    await expect(parseEuXml(nameless)).rejects.toThrow(/has no nameAlias/)
  })

  it('refuses an unknown root element', async () => {
    await expect(parseEuXml('<html><body>maintenance</body></html>')).rejects.toThrow(/expected <export>/)
  })
})

describe('parseEuXml on the real legacy EU file (2016-02-11)', () => {
  const raw = readShared(EU_LEGACY_FILE)
  const rawEntities = rawEuLegacyEntities(raw.toString('utf8'))

  it('detects the legacy format and yields every ENTITY with its Id', async () => {
    const list = await parseEuXml(raw)
    expect(list.format).toBe('eu_legacy_xml')
    expect(list.publication_date).toBe('2016-02-11')
    expect(rawEntities).toHaveLength(595)
    expect(list.entries.map((entry) => entry.entry_id)).toEqual(rawEntities.map((entity) => entity.id))
    const persons = rawEntities.filter((entity) => /^<ENTITY Id="\d+" Type="P"/.test(entity.block)).length
    expect(list.entries.filter((entry) => entry.entry_type === 'person')).toHaveLength(persons)
    expect(list.entries.filter((entry) => entry.entry_type === 'entity')).toHaveLength(595 - persons)
  })

  it('keeps every WHOLENAME of an entity as its name or an alias', async () => {
    const list = await parseEuXml(raw)
    for (const [i, entity] of rawEntities.entries()) {
      const entry = list.entries[i]!
      const names = new Set([entry.name, ...entry.aliases.map((alias) => alias.name)])
      for (const name of entity.names) expect(names).toContain(name)
    }
  })

  it('maps Saddam Hussein (Id 13): programme, date, ISO-3 citizenship to alpha-2, aliases', async () => {
    const entry = (await parseEuXml(raw)).entries.find((candidate) => candidate.entry_id === '13')!
    expect(entry).toMatchObject({
      entry_type: 'person',
      name: 'Saddam Hussein Al-Tikriti',
      programmes: ['IRQ'],
      countries: ['IQ'],
      listed_on: '2003-07-07',
    })
    expect(entry.aliases).toContainEqual({ name: 'Abou Ali', kind: 'aka' })
  })

  it('splits legacy passport text into number and document type', async () => {
    const mugabe = (await parseEuXml(raw)).entries.find((candidate) => candidate.entry_id === '1')!
    expect(mugabe.identifiers).toEqual([{ type: 'passport', value: 'AD001095', label: 'National passport' }])
  })

  it('throws ListParseError on the truncated real file', async () => {
    await expect(parseEuXml(raw.subarray(0, raw.length - 5000))).rejects.toBeInstanceOf(ListParseError)
  })
})
