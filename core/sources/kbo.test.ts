import { describe, expect, it } from 'vitest'
import { KBO_FULL_FIXTURE_DIR, kboMemorySource } from '../../test/support/fakes/kbo-extract.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createKboLookup, normaliseEnterpriseNumber } from './kbo.ts'
import { createKboImporter, kboDate, kboDirectorySource } from './kbo-import.ts'
import { createInMemoryKboStore, type KboStore } from './kbo-store.ts'

const clock = createManualClock('2025-06-02T08:00:00.000Z')

async function loadedStore(batchSize = 2): Promise<KboStore> {
  const store = createInMemoryKboStore()
  await createKboImporter({ store, clock, batchSize }).importExtract(kboDirectorySource(KBO_FULL_FIXTURE_DIR))
  return store
}

const lookupOk = async (store: KboStore, number: string) => {
  const result = await createKboLookup({ store, clock }).lookupEnterprise(number)
  if (result.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result)}`)
  return result.data
}

describe('KBO open data import', () => {
  it('streams a full extract in batches, keeping enterprise rows and skipping establishments', async () => {
    const store = createInMemoryKboStore()
    const stats = await createKboImporter({ store, clock, batchSize: 2 }).importExtract(
      kboDirectorySource(KBO_FULL_FIXTURE_DIR),
    )
    expect(stats.meta).toEqual({
      extract_type: 'full',
      extract_number: '136',
      snapshot_date: '2025-05-30',
      extract_timestamp: '01-06-2025 07:07:49',
      version: '1.0.0',
    })
    expect(stats.rows).toEqual({
      enterprise: 4,
      denomination: 7,
      address: 4,
      activity: 11,
      code: 11,
      deleted: 0,
    })
    expect(stats.skipped).toBe(0)
    expect(await store.getImportState()).toMatchObject({
      extract_number: '136',
      imported_at: '2025-06-02T08:00:00.000Z',
    })
    expect(await store.getEnterprise('2.000.000.339')).toBeNull()
  })

  it('reads dd-mm-yyyy dates as ISO dates', () => {
    expect(kboDate('09-08-1960')).toBe('1960-08-09')
    expect(kboDate('')).toBeNull()
  })
})

describe('KBO enterprise lookup', () => {
  it('returns the dotted number, names, status, juridical data, seat address and newest NACE codes', async () => {
    const store = await loadedStore()
    const data = await lookupOk(store, 'BE 0200065765')
    expect(data).toEqual({
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
      address: {
        street: 'Panhuisstraat',
        house_number: '1',
        box: null,
        zipcode: '9070',
        municipality: 'Destelbergen',
        country: null,
        type: 'REGO',
      },
      nace_codes: [
        { code: '68121', version: '2025', main: true, description: null },
        { code: '84130', version: '2025', main: true, description: null },
      ],
      dataset: { snapshot_date: '2025-05-30', extract_number: '136' },
    })
  })

  it('puts main activities before secondary ones', async () => {
    const data = await lookupOk(await loadedStore(), '0200.068.636')
    expect(data.nace_codes.map((n) => [n.code, n.main])).toEqual([
      ['36000', true],
      ['93110', false],
      ['93299', false],
    ])
  })

  it('prefers a French official name when asked to', async () => {
    const store = await loadedStore()
    const result = await createKboLookup({ store, clock, languages: ['fr', 'nl'] }).lookupEnterprise(
      '0200.362.210',
    )
    expect(result).toMatchObject({ status: 'ok', data: { name: 'in BW Association Intercommunale' } })
  })

  it('answers a valid number absent from the open data as not found', async () => {
    const data = await lookupOk(await loadedStore(), '0403.170.701')
    expect(data).toMatchObject({
      found: false,
      enterprise_number: '0403.170.701',
      not_found_reason: 'not_in_open_data',
    })
  })

  it('answers a number failing the mod-97 check as not found without a store read', async () => {
    const data = await lookupOk(await loadedStore(), '0200.065.766')
    expect(data).toMatchObject({ found: false, not_found_reason: 'invalid_number' })
  })

  it('is unavailable (dataset_not_loaded), never "not found", before any import', async () => {
    const result = await createKboLookup({ store: createInMemoryKboStore(), clock }).lookupEnterprise(
      '0200.065.765',
    )
    expect(result).toMatchObject({ source: 'kbo', status: 'unavailable', reason: 'dataset_not_loaded' })
  })

  it('is unavailable with store_error when the store fails', async () => {
    const store = await loadedStore()
    const broken: KboStore = {
      ...store,
      getEnterprise: async () => {
        throw new Error('connection lost')
      },
    }
    const result = await createKboLookup({ store: broken, clock }).lookupEnterprise('0200.065.765')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'store_error', detail: 'connection lost' })
  })
})

describe('KBO extracts over time', () => {
  const updateExtract = kboMemorySource({
    'meta.csv':
      '"Variable","Value"\n"SnapshotDate","06-06-2025"\n"ExtractType","update"\n"ExtractNumber","137"\n',
    'enterprise_delete.csv': '"EnterpriseNumber"\n"0200.245.711"\n"0200.068.636"\n',
    'enterprise_insert.csv':
      '"EnterpriseNumber","Status","JuridicalSituation","TypeOfEnterprise","JuridicalForm","JuridicalFormCAC","StartDate"\n' +
      '"0200.068.636","AC","000","2","417",,16-02-1923\n' +
      '"0200.362.408","AC","000","2","706",,01-01-1968\n',
    'denomination_delete.csv': '"EntityNumber"\n"0200.245.711"\n',
    'denomination_insert.csv':
      '"EntityNumber","Language","TypeOfDenomination","Denomination"\n' +
      '"0200.362.408","1","001","Intercommunale Sociale du Brabant wallon"\n' +
      '"0200.362.408","1","002","I.S.B.W."\n',
  })

  it('applies an update: deleted and not re-inserted means stopped, re-inserted stays active, new appears', async () => {
    const store = await loadedStore()
    const stats = await createKboImporter({ store, clock }).importExtract(updateExtract)
    expect(stats.meta.extract_type).toBe('update')
    expect(stats.rows.deleted).toBe(3)

    const stopped = await lookupOk(store, '0200.245.711')
    expect(stopped).toMatchObject({
      found: true,
      status: 'stopped',
      name: 'Intercommunaal Sanatorium Denderoord',
    })
    expect(await lookupOk(store, '0200.068.636')).toMatchObject({ status: 'active', name: 'Farys' })
    expect(await lookupOk(store, '0200.362.408')).toMatchObject({
      status: 'active',
      name: 'Intercommunale Sociale du Brabant wallon',
      dataset: { extract_number: '137', snapshot_date: '2025-06-06' },
    })
  })

  it('marks enterprises missing from a newer full extract as stopped and swaps the data at the end', async () => {
    const store = await loadedStore()
    const newerFull = kboMemorySource({
      'meta.csv': '"Variable","Value"\n"ExtractType","full"\n"ExtractNumber","138"\n',
      'enterprise.csv':
        '"EnterpriseNumber","Status","JuridicalSituation","TypeOfEnterprise","JuridicalForm","JuridicalFormCAC","StartDate"\n' +
        '"0200.068.636","AC","000","2","417",,16-02-1923\n',
      'denomination.csv':
        '"EntityNumber","Language","TypeOfDenomination","Denomination"\n"0200.068.636","2","001","Farys"\n',
    })
    await createKboImporter({ store, clock }).importExtract(newerFull)
    expect(await lookupOk(store, '0200.065.765')).toMatchObject({
      found: true,
      status: 'stopped',
      name: 'Intergemeentelijke Vereniging Veneco',
    })
    expect(await lookupOk(store, '0200.068.636')).toMatchObject({ status: 'active', address: null })
    // codes survive a full extract without code.csv
    expect(await store.describeCode('JuridicalSituation', '000', ['NL'])).toBe('Normale toestand')
  })
})

describe('normaliseEnterpriseNumber', () => {
  it.each([
    ['0200.065.765', '0200.065.765'],
    ['0200065765', '0200.065.765'],
    ['BE0200065765', '0200.065.765'],
    ['200065765', '0200.065.765'],
    ['0403.170.701', '0403.170.701'],
    ['0200.065.766', null],
    ['2.000.000.339', null],
    ['12345', null],
  ])('reads %s as %s', (input, expected) => {
    expect(normaliseEnterpriseNumber(input)).toBe(expected)
  })
})
