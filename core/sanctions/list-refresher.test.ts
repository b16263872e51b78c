import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import { createManualClock } from '../../test/support/fakes/index.ts'
import type { Database } from '../store/database.ts'
import { createListRefresher, type ListRefresher } from './list-refresher.ts'
import { createSanctionsListStore } from './list-store.ts'
import { createScreeningIndex, type ScreeningIndex } from './screening-index.ts'

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures')
const UN_FILE = path.join(fixtures, 'un-handmade.xml')
const HOUR = 3_600_000

describe('list refresher (pglite)', () => {
  let database: Database
  const clock = createManualClock('2026-03-01T06:00:00.000Z')
  const refreshers: ListRefresher[] = []

  function create(): { lists: ScreeningIndex; refresher: ListRefresher } {
    const lists = createScreeningIndex({ clock, staleAfterMs: 36 * HOUR })
    const refresher = createListRefresher(lists, {
      store: createSanctionsListStore(database.db, clock),
      clock,
      sources: { un: UN_FILE, eu: '  ' },
    })
    refreshers.push(refresher)
    return { lists, refresher }
  }

  beforeEach(async () => {
    database = await openTestDatabase('pglite')
  })
  afterEach(async () => {
    for (const refresher of refreshers.splice(0)) await refresher.stop()
    await database.close()
  })

  it('reads a due list, then reports it not due within the interval; lists without a source are not configured', async () => {
    const { lists, refresher } = create()
    expect(refresher.configured('un')).toBe(true)
    expect(refresher.configured('eu')).toBe(false)
    const first = await refresher.refresh()
    expect(first.ran).toBe(true)
    expect(first.lists.map((list) => [list.list_key, list.status])).toEqual([
      ['un', 'updated'],
      ['ofac_sdn', 'not_configured'],
      ['eu', 'not_configured'],
    ])
    expect(lists.ready()).toBe(true)
    expect(lists.lastAttempt('un')).toEqual({ at: clock.now(), error: null })

    clock.advance(HOUR)
    const second = await refresher.refresh({ lists: ['un'] })
    expect(second.lists).toEqual([
      expect.objectContaining({ list_key: 'un', status: 'not_due', version_id: first.lists[0]?.version_id }),
    ])
  })

  it('hands versions another process stored to its index, once', async () => {
    const writer = create()
    const reader = create()
    await writer.refresher.refresh()
    expect(reader.lists.ready()).toBe(false)
    expect(await reader.refresher.reloadFromStore()).toBe(true)
    expect(reader.lists.loadedLists().map((list) => list.version_id)).toEqual(
      writer.lists.loadedLists().map((list) => list.version_id),
    )
    expect(await reader.refresher.reloadFromStore()).toBe(false)
  })

  it('runs no pass once stopped', async () => {
    const { refresher } = create()
    await refresher.stop()
    expect(await refresher.refresh({ force: true })).toEqual({ ran: false, skipped: 'stopped', lists: [] })
  })
})

describe.each(DATABASE_KINDS)('list refresher: a version older than the one in use (%s)', (kind) => {
  let database: Database
  let folder: string
  const clock = createManualClock('2026-03-01T06:00:00.000Z')
  const refreshers: ListRefresher[] = []

  /** The hand-made UN file as published on `date` (only its dateGenerated differs). */
  async function unFileOf(date: string): Promise<string> {
    const text = (await readFile(UN_FILE, 'utf8')).replace(
      /dateGenerated="[^"]*"/,
      `dateGenerated="${date}T00:00:01.000Z"`,
    )
    const file = path.join(folder, `un-${date}.xml`)
    await writeFile(file, text)
    return file
  }

  function create(source: string) {
    const lists = createScreeningIndex({ clock, staleAfterMs: 36 * HOUR })
    const store = createSanctionsListStore(database.db, clock)
    const refresher = createListRefresher(lists, { store, clock, sources: { un: source } })
    refreshers.push(refresher)
    return { lists, store, refresher }
  }

  beforeEach(async () => {
    database = await openTestDatabase(kind)
    folder = await mkdtemp(path.join(tmpdir(), 'older-list-'))
  })
  afterEach(async () => {
    for (const refresher of refreshers.splice(0)) await refresher.stop()
    await database.close()
    await rm(folder, { recursive: true, force: true })
  })

  it('refuses it (the newer version stays in use, no diff, no alert) unless accepted, then stores it without a diff', async () => {
    const newer = create(await unFileOf('2026-02-20'))
    expect((await newer.refresher.refresh()).lists[0]).toMatchObject({
      status: 'updated',
      publication_date: '2026-02-20',
    })
    const diffsBefore = (await newer.store.diffs({ listKey: 'un' })).length

    const older = create(await unFileOf('2026-01-15'))
    const refused = await older.refresher.refresh({ force: true })
    expect(refused.lists[0]).toMatchObject({
      list_key: 'un',
      status: 'refused_older',
      publication_date: '2026-01-15',
    })
    expect(refused.lists[0]?.error).toContain('older than the one in use (published 2026-02-20)')
    expect(older.lists.loaded('un')?.publication_date).toBe('2026-02-20')
    expect((await older.store.latest()).find((v) => v.list_key === 'un')?.publication_date).toBe('2026-02-20')
    expect(await older.store.diffs({ listKey: 'un' })).toHaveLength(diffsBefore)
    // A refused version is not a failed read: the copy in use is not reported as failing.
    expect(older.lists.lastAttempt('un')?.error ?? null).toBeNull()

    const forced = await older.refresher.refresh({ force: true, acceptOlder: true })
    expect(forced.lists[0]).toMatchObject({ status: 'updated', publication_date: '2026-01-15' })
    expect(forced.lists[0]?.diff).toBeUndefined()
    expect(older.lists.loaded('un')?.publication_date).toBe('2026-01-15')
    expect(await older.store.diffs({ listKey: 'un' })).toHaveLength(diffsBefore)
  })
})
