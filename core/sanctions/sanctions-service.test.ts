import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  DATABASE_KINDS,
  type DatabaseKind,
  openTestDatabase,
  testPostgresUrl,
} from '../../test/support/database.ts'
import { createManualClock, type ManualClock } from '../../test/support/fakes/index.ts'
import { type ListServer, startListServer } from '../../test/support/sanctions/list-server.ts'
import {
  EU_LEGACY_FILE,
  rawUnRecords,
  readShared,
  sanctionsDataPath,
  UN_FILES,
} from '../../test/support/sanctions/shared-data.ts'
import { createDatabase, type Database } from '../store/database.ts'
import { createSanctionsListStore } from './list-store.ts'
import {
  createSanctionsService,
  type SanctionsService,
  type SanctionsServiceOptions,
} from './sanctions-service.ts'

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures')
const DAY = 86_400_000

/** Two connections to one fresh database, as two server processes would have. */
async function openShared(kind: DatabaseKind): Promise<[Database, Database]> {
  if (kind === 'pglite') {
    const database = await openTestDatabase('pglite')
    return [database, database]
  }
  const url = await testPostgresUrl()
  return [await createDatabase({ url, maxConnections: 5 }), await createDatabase({ url, maxConnections: 5 })]
}

describe.each(DATABASE_KINDS)('sanctions service on %s', (kind) => {
  const unOld = readShared(UN_FILES['2025-11-18'])
  const unNew = readShared(UN_FILES['2026-02-27'])
  const eu = readShared(EU_LEGACY_FILE)
  let server: ListServer
  let databases: [Database, Database]
  let clock: ManualClock
  const services: SanctionsService[] = []
  let sources: SanctionsServiceOptions['sources']

  function create(database: Database, overrides: Partial<SanctionsServiceOptions> = {}): SanctionsService {
    const service = createSanctionsService({
      store: createSanctionsListStore(database.db, clock),
      clock,
      sources,
      startupRefreshDelayMs: 0,
      ...overrides,
    })
    services.push(service)
    return service
  }

  beforeAll(async () => {
    clock = createManualClock('2026-03-01T06:00:00.000Z')
    server = await startListServer({ '/un.xml': unOld, '/eu.xml': eu })
    sources = { un: `${server.url}/un.xml`, eu: `${server.url}/eu.xml` }
    databases = await openShared(kind)
  })
  afterAll(async () => {
    for (const service of services) await service.stop()
    await server?.close()
    await databases?.[0].close()
    if (databases && databases[1] !== databases[0]) await databases[1].close()
  })

  const unNames = (xml: Buffer) => rawUnRecords(xml.toString('utf8'))

  it('answers unavailable, never clean, while no list was ever loaded', async () => {
    const emptyDatabase = await openTestDatabase('pglite')
    const empty = create(emptyDatabase, { sources: {} })
    await empty.start()
    expect(empty.ready()).toBe(false)
    expect(empty.screenName('Anyone At All')).toMatchObject({
      status: 'unavailable',
      reason: 'sanctions_lists_not_loaded',
    })
    expect(await empty.refresh()).toMatchObject({ ran: false, skipped: 'no_sources' })
    await empty.stop()
    await emptyDatabase.close()
  })

  it('downloads the configured lists after start-up, stores one version each and screens against them', async () => {
    const first = create(databases[0])
    await first.start()
    await first.idle()
    expect(server.count('/un.xml')).toBe(1)
    expect(server.count('/eu.xml')).toBe(1)
    expect(first.loadedLists().map((list) => list.list_key)).toEqual(['eu', 'un'])
    const record = unNames(unOld)[10]!
    const screened = first.screenName(record.names[0]!)
    expect(screened.status).toBe('ok')
    if (screened.status !== 'ok') return
    expect(screened.matches.map((match) => `${match.list_key}/${match.entry_id}`)).toContain(
      `un/${record.id}`,
    )
    expect(screened.note).toContain('UN Security Council Consolidated List as of 2025-11-18')
    const store = createSanctionsListStore(databases[0].db, clock)
    expect((await store.versions('un')).map((version) => version.entry_count)).toEqual([
      unNames(unOld).length,
    ])
    await first.stop()
  })

  it('restarts from the database without downloading again', async () => {
    const restarted = create(databases[1])
    await restarted.start()
    expect(restarted.ready()).toBe(true)
    expect(restarted.loadedLists().map((list) => list.as_of)).toEqual(['2016-02-11', '2025-11-18'])
    await restarted.idle()
    expect(server.count('/un.xml')).toBe(1)
    expect(server.count('/eu.xml')).toBe(1)
    const record = unNames(unOld)[20]!
    const screened = restarted.screenName(record.names[0]!)
    expect(screened.status === 'ok' && screened.matches.some((m) => m.entry_id === record.id)).toBe(true)
    await restarted.stop()
  })

  it('keeps the old list in use and in the database when the new file is corrupt', async () => {
    const service = create(databases[0])
    await service.start()
    const before = service.loadedLists().find((list) => list.list_key === 'un')!
    server.set('/un.xml', unNew.subarray(0, Math.floor(unNew.length / 2)))
    const report = await service.refresh({ force: true, lists: ['un'] })
    expect(report.lists).toEqual([expect.objectContaining({ list_key: 'un', status: 'failed' })])
    expect(service.loadedLists().find((list) => list.list_key === 'un')?.version_id).toBe(before.version_id)
    const store = createSanctionsListStore(databases[0].db, clock)
    expect((await store.versions('un')).map((version) => version.id)).toEqual([before.version_id])
    const record = unNames(unOld)[30]!
    const screened = service.screenName(record.names[0]!)
    expect(screened.status === 'ok' && screened.matches.some((m) => m.entry_id === record.id)).toBe(true)
    expect(service.listNote()).toContain('the latest refresh failed')
    await service.stop()
  })

  it('stores a changed list as a new version with the diff from the one before', async () => {
    const service = create(databases[0])
    await service.start()
    const before = service.loadedLists().find((list) => list.list_key === 'un')!
    server.set('/un.xml', unNew)
    clock.advance(60_000)
    const report = await service.refresh({ force: true, lists: ['un'] })
    const outcome = report.lists[0]!
    expect(outcome).toMatchObject({ list_key: 'un', status: 'updated', publication_date: '2026-02-27' })

    const oldIds = new Set(unNames(unOld).map((record) => record.id))
    const newRecords = unNames(unNew)
    const newIds = new Set(newRecords.map((record) => record.id))
    const added = [...newIds].filter((id) => !oldIds.has(id))
    const removed = [...oldIds].filter((id) => !newIds.has(id))
    expect(outcome.diff).toMatchObject({ added: added.length, removed: removed.length })
    const store = createSanctionsListStore(databases[0].db, clock)
    const diff = await store.readDiff(outcome.diff!.id)
    expect(diff).toMatchObject({ from_version: before.version_id, to_version: outcome.version_id })
    expect(diff?.detail.added.map((entry) => entry.entry_id).sort()).toEqual(added.sort())
    expect(diff?.detail.removed.map((entry) => entry.entry_id).sort()).toEqual(removed.sort())

    const newcomer = newRecords.find((record) => record.id === added[0])!
    const screened = service.screenName(newcomer.names[0]!)
    expect(screened.status === 'ok' && screened.matches.some((m) => m.entry_id === newcomer.id)).toBe(true)
    expect(service.listNote()).toContain('as of 2026-02-27')
    await service.stop()
  })

  it('records an unchanged download as a check, not as a new version', async () => {
    const service = create(databases[0])
    await service.start()
    const store = createSanctionsListStore(databases[0].db, clock)
    const versions = await store.versions('un')
    clock.advance(60_000)
    const report = await service.refresh({ force: true, lists: ['un'] })
    expect(report.lists[0]).toMatchObject({ status: 'unchanged', version_id: versions[0]!.id })
    const after = await store.versions('un')
    expect(after.map((version) => version.id)).toEqual(versions.map((version) => version.id))
    expect(after[0]!.checked_at.toISOString()).toBe(clock.now().toISOString())
    await service.stop()
  })

  it('runs one refresh at a time when two processes share the database', async () => {
    const one = create(databases[0])
    const two = create(databases[1])
    await Promise.all([one.start(), two.start()])
    // Both start-up passes take the lease briefly; let them finish so only the two refreshes below compete.
    await Promise.all([one.idle(), two.idle()])
    const countBefore = { eu: server.count('/eu.xml'), un: server.count('/un.xml') }
    const release = server.hold()
    const first = one.refresh({ force: true })
    // EU is refreshed first (list order): its download is held while the lease is taken. Should the
    // first pass end without downloading, the race below fails at once instead of timing out.
    await Promise.race([
      server.waitForRequests('/eu.xml', countBefore.eu + 1),
      first.then((report) => {
        throw new Error(`the first refresh ended before downloading: ${JSON.stringify(report)}`)
      }),
    ])
    const second = await two.refresh({ force: true })
    expect(second).toMatchObject({ ran: false, skipped: 'lease_held' })
    release()
    expect(await first).toMatchObject({ ran: true })
    expect(server.count('/eu.xml')).toBe(countBefore.eu + 1)
    expect(server.count('/un.xml')).toBe(countBefore.un + 1)
    await Promise.all([one.stop(), two.stop()])
  })

  it('says how old a list is when its refreshes keep failing', async () => {
    const service = create(databases[0])
    await service.start()
    clock.advance(3 * DAY)
    server.set('/eu.xml', null)
    const report = await service.refresh({ lists: ['eu'] })
    expect(report.lists[0]).toMatchObject({ list_key: 'eu', status: 'failed' })
    expect(report.lists[0]?.error).toContain('HTTP 404')
    const note = service.listNote()
    expect(note).toMatch(
      /EU Consolidated Financial Sanctions List: the copy in use was last refreshed 3 days ago/,
    )
    expect(service.status().find((list) => list.list_key === 'eu')).toMatchObject({ stale: true })
    expect(service.screenName('Anyone At All').status).toBe('ok')
    server.set('/eu.xml', eu)
    await service.stop()
  })
})

describe('sanctions service refresh checks', () => {
  const unNew = readShared(UN_FILES['2026-02-27'])
  let server: ListServer
  let database: Database
  const clock = createManualClock('2026-03-01T06:00:00.000Z')
  const services: SanctionsService[] = []
  const create = (sources: SanctionsServiceOptions['sources']) => {
    const service = createSanctionsService({
      store: createSanctionsListStore(database.db, clock),
      clock,
      sources,
    })
    services.push(service)
    return service
  }

  beforeAll(async () => {
    server = await startListServer({ '/un.xml': unNew })
  })
  beforeEach(async () => {
    database = await openTestDatabase('pglite')
  })
  afterEach(async () => {
    for (const service of services.splice(0)) await service.stop()
    await database.close()
  })
  afterAll(async () => {
    await server?.close()
  })

  it('refuses a source that holds another list than configured, and reads a .bz2 file', async () => {
    const service = create({ eu: `${server.url}/un.xml`, un: path.join(fixtures, 'un-handmade.xml.bz2') })
    const report = await service.refresh()
    expect(report.lists.find((list) => list.list_key === 'eu')).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('holds the un list'),
    })
    expect(report.lists.find((list) => list.list_key === 'un')).toMatchObject({ status: 'updated' })
    expect(service.loadedLists().map((list) => list.list_key)).toEqual(['un'])
  })

  it('refuses a file with far fewer entries than the version in use', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sanctions-shrink-'))
    try {
      const file = path.join(dir, 'un.xml')
      writeFileSync(file, unNew)
      const service = create({ un: file })
      expect((await service.refresh()).lists[0]).toMatchObject({ status: 'updated' })
      // A newer publication (an older one is refused before its size is looked at) with far fewer entries.
      const shrunk = readFileSync(path.join(fixtures, 'un-handmade.xml'), 'utf8').replace(
        /dateGenerated="[^"]+"/,
        'dateGenerated="2026-12-01T00:00:01.000Z"',
      )
      writeFileSync(file, shrunk)
      const report = await service.refresh({ force: true })
      expect(report.lists[0]).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('probable partial'),
      })
      expect(service.loadedLists()[0]?.entry_count).toBe(rawUnRecords(unNew.toString('utf8')).length)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('reads the sources again at start-up when the stored versions are older than the refresh interval', async () => {
    const first = create({ un: `${server.url}/un.xml` })
    await first.refresh()
    await first.stop()
    const before = server.count('/un.xml')
    const soon = create({ un: `${server.url}/un.xml` })
    await soon.start()
    await soon.idle()
    expect(server.count('/un.xml')).toBe(before)
    await soon.stop()
    clock.advance(25 * 3_600_000)
    const late = createSanctionsService({
      store: createSanctionsListStore(database.db, clock),
      clock,
      sources: { un: `${server.url}/un.xml` },
      startupRefreshDelayMs: 0,
    })
    services.push(late)
    await late.start()
    await late.idle()
    expect(server.count('/un.xml')).toBe(before + 1)
    expect(late.loadedLists()[0]?.checked_at.toISOString()).toBe(clock.now().toISOString())
  })

  it('screens wallet addresses and registration numbers with the list entry and basis', async () => {
    const csvPath = 'ofac/csv/2021-07-07/sdn.csv'
    const csv = readShared(csvPath).toString('latin1')
    const service = create({ ofac_sdn: sanctionsDataPath(csvPath) })
    await service.refresh()
    const lineWith = (text: string) => csv.split('\n').find((line) => line.includes(text))!
    const address = /Digital Currency Address - ETH (0x[0-9a-fA-F]{40})/.exec(csv)![1]!
    const addressEntry = lineWith(address).split(',')[0]
    const byAddress = service.screenAddress(address.toLowerCase())
    expect(byAddress.status).toBe('ok')
    if (byAddress.status !== 'ok') return
    expect(byAddress.matches[0]).toMatchObject({
      list_key: 'ofac_sdn',
      entry_id: addressEntry,
      match_type: 'crypto_address',
      basis: { field: 'crypto_address', value: address, currencies: ['ETH'] },
    })
    const registrationEntry = lineWith('Registration Number 02696754 (United Kingdom)').split(',')[0]
    const byNumber = service.screenRegistration('02696754', 'GB')
    expect(byNumber.status === 'ok' && byNumber.matches[0]).toMatchObject({
      entry_id: registrationEntry,
      match_type: 'registration',
      basis: { field: 'registration', value: '02696754' },
    })
    expect(service.screenAddress('0x0000000000000000000000000000000000000001')).toMatchObject({
      status: 'ok',
      matches: [],
    })
  })
})
