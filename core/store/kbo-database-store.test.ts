import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { openTestDatabase } from '../../test/support/database.ts'
import { createManualClock, KBO_FULL_FIXTURE_DIR, kboMemorySource } from '../../test/support/fakes/index.ts'
import {
  createInMemoryKboStore,
  createKboImporter,
  createKboLookup,
  type KboEnterprise,
  type KboStore,
  kboDirectorySource,
} from '../sources/index.ts'
import type { Database } from './database.ts'
import { createKboDatabaseStore } from './kbo-database-store.ts'

const clock = createManualClock('2025-06-02T08:00:00.000Z')
const ENTERPRISE_HEADER =
  '"EnterpriseNumber","Status","JuridicalSituation","TypeOfEnterprise","JuridicalForm","JuridicalFormCAC","StartDate"\n'

const updateExtract = () =>
  kboMemorySource({
    'meta.csv':
      '"Variable","Value"\n"SnapshotDate","06-06-2025"\n"ExtractType","update"\n"ExtractNumber","137"\n',
    'enterprise_delete.csv': '"EnterpriseNumber"\n"0200.245.711"\n"0200.068.636"\n',
    'enterprise_insert.csv': `${ENTERPRISE_HEADER}"0200.068.636","AC","000","2","417",,16-02-1923\n"0200.362.408","AC","000","2","706",,01-01-1968\n`,
    'denomination_delete.csv': '"EntityNumber"\n"0200.245.711"\n',
    'denomination_insert.csv':
      '"EntityNumber","Language","TypeOfDenomination","Denomination"\n' +
      '"0200.362.408","1","001","Intercommunale Sociale du Brabant wallon"\n',
  })

const newerFull = () =>
  kboMemorySource({
    'meta.csv': '"Variable","Value"\n"ExtractType","full"\n"ExtractNumber","138"\n',
    'enterprise.csv': `${ENTERPRISE_HEADER}"0200.068.636","AC","000","2","417",,16-02-1923\n`,
    'denomination.csv':
      '"EntityNumber","Language","TypeOfDenomination","Denomination"\n"0200.068.636","2","001","Farys"\n',
  })

const databases = new Map<string, Database>()
afterAll(async () => {
  await Promise.all([...databases.values()].map((database) => database.close()))
})

/** The same contract on the in-memory reference store and on both databases. */
const KINDS = ['memory', 'pglite', 'postgres'] as const

/** A store over empty KBO tables (one database per kind, emptied per test: PGlite starts slowly). */
async function freshStore(kind: (typeof KINDS)[number]): Promise<KboStore> {
  if (kind === 'memory') return createInMemoryKboStore()
  let database = databases.get(kind)
  if (!database) {
    database = await openTestDatabase(kind)
    databases.set(kind, database)
  }
  await database.db.execute(
    sql`truncate kbo_enterprises, kbo_denominations, kbo_addresses, kbo_activities, kbo_codes, kbo_stopped, kbo_pending_stops, kbo_import_state`,
  )
  return createKboDatabaseStore(database.db)
}

const importInto = (store: KboStore, source = kboDirectorySource(KBO_FULL_FIXTURE_DIR)) =>
  createKboImporter({ store, clock, batchSize: 2 }).importExtract(source)

async function lookup(store: KboStore, number: string): Promise<KboEnterprise> {
  const result = await createKboLookup({ store, clock }).lookupEnterprise(number)
  if (result.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result)}`)
  return result.data
}

describe.each(KINDS)('KBO store contract on %s', (kind) => {
  it('is unavailable (dataset_not_loaded) before the first import', async () => {
    const result = await createKboLookup({ store: await freshStore(kind), clock }).lookupEnterprise(
      '0200.065.765',
    )
    expect(result).toMatchObject({ status: 'unavailable', reason: 'dataset_not_loaded' })
  })

  it('imports the real Veneco entry: names, seat address, NACE codes, dataset', async () => {
    const store = await freshStore(kind)
    await importInto(store)
    expect(await lookup(store, '0200.065.765')).toMatchObject({
      found: true,
      name: 'Intergemeentelijke Vereniging Veneco',
      names: [
        { language: 'nl', type: 'name', name: 'Intergemeentelijke Vereniging Veneco' },
        { language: 'nl', type: 'abbreviation', name: 'Veneco' },
      ],
      status: 'active',
      juridical_situation: { code: '000', description: 'Normale toestand' },
      start_date: '1960-08-09',
      address: { street: 'Panhuisstraat', house_number: '1', zipcode: '9070', municipality: 'Destelbergen' },
      nace_codes: [
        { code: '68121', version: '2025', main: true },
        { code: '84130', version: '2025', main: true },
      ],
      dataset: { snapshot_date: '2025-05-30', extract_number: '136' },
    })
    expect(await lookup(store, '0200.065.766')).toMatchObject({ found: false })
  })

  it('applies an update: deleted and not re-inserted is stopped, re-inserted stays active, new appears', async () => {
    const store = await freshStore(kind)
    await importInto(store)
    await importInto(store, updateExtract())
    expect(await lookup(store, '0200.245.711')).toMatchObject({
      status: 'stopped',
      name: 'Intercommunaal Sanatorium Denderoord',
    })
    expect(await lookup(store, '0200.068.636')).toMatchObject({ status: 'active', name: 'Farys' })
    expect(await lookup(store, '0200.362.408')).toMatchObject({
      status: 'active',
      name: 'Intercommunale Sociale du Brabant wallon',
      dataset: { extract_number: '137', snapshot_date: '2025-06-06' },
    })
  })

  it('swaps in a newer full extract only when it finishes; what it lacks becomes stopped', async () => {
    const store = await freshStore(kind)
    await importInto(store)
    let seenDuringImport: KboEnterprise | undefined
    const original = store.insertDenominations.bind(store)
    store.insertDenominations = async (batch) => {
      seenDuringImport ??= await lookup(store, '0200.065.765')
      return original(batch)
    }
    await importInto(store, newerFull())
    expect(seenDuringImport).toMatchObject({ status: 'active', name: 'Intergemeentelijke Vereniging Veneco' })
    expect(await lookup(store, '0200.065.765')).toMatchObject({
      status: 'stopped',
      name: 'Intergemeentelijke Vereniging Veneco',
    })
    expect(await lookup(store, '0200.068.636')).toMatchObject({ status: 'active', address: null })
    expect(await store.describeCode('JuridicalSituation', '000', ['NL'])).toBe('Normale toestand')
    expect(await store.getImportState()).toMatchObject({ extract_type: 'full', extract_number: '138' })
  })
})
