import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import { createManualClock, type ManualClock } from '../../test/support/fakes/index.ts'
import { sanctionsDataPath, UN_FILES } from '../../test/support/sanctions/shared-data.ts'
import type { Database } from '../store/database.ts'
import { diffLists } from './list-diff.ts'
import { parseListFile } from './list-source.ts'
import { createSanctionsListStore, type SanctionsListStore } from './list-store.ts'
import type { ParsedList } from './types.ts'

describe.each(DATABASE_KINDS)('sanctions list store on %s', (kind) => {
  let database: Database
  let store: SanctionsListStore
  let clock: ManualClock
  let older: ParsedList
  let newer: ParsedList

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    clock = createManualClock('2026-03-01T06:00:00.000Z')
    store = createSanctionsListStore(database.db, clock)
    older = await parseListFile(sanctionsDataPath(UN_FILES['2025-11-18']))
    newer = await parseListFile(sanctionsDataPath(UN_FILES['2026-02-27']))
  })
  afterAll(async () => {
    await database?.close()
  })

  it('stores a version and gives back exactly its entries', async () => {
    const { version } = await store.saveVersion({
      list: older,
      sha256: 'a'.repeat(64),
      source: '/lists/un-old.xml',
      fetchedAt: clock.now(),
      keep: 10,
    })
    expect(version).toMatchObject({
      list_key: 'un',
      format: 'un_xml',
      publication_date: older.publication_date,
      entry_count: older.entry_count,
      source: '/lists/un-old.xml',
    })
    expect(await store.readEntries(version.id)).toEqual(older.entries)
    const [latest] = await store.latestWithEntries()
    expect(latest?.id).toBe(version.id)
    expect(latest?.entries).toEqual(older.entries)
  })

  it('stores the diff to the previous version with its counts and detail', async () => {
    const [previous] = await store.latest()
    clock.advance(86_400_000)
    const diff = diffLists(older, newer)
    const saved = await store.saveVersion({
      list: newer,
      sha256: 'b'.repeat(64),
      source: '/lists/un-new.xml',
      fetchedAt: clock.now(),
      diff: { fromVersion: previous!.id, diff },
      keep: 10,
    })
    expect(saved.diff).toMatchObject({
      list_key: 'un',
      from_version: previous!.id,
      to_version: saved.version.id,
      added_count: diff.added.length,
      removed_count: diff.removed.length,
      changed_count: diff.changed.length,
    })
    const stored = await store.readDiff(saved.diff!.id)
    expect(stored?.detail.added.map((entry) => entry.entry_id)).toEqual(diff.added.map((e) => e.entry_id))
    expect(stored?.detail.removed.map((entry) => entry.entry_id)).toEqual(diff.removed.map((e) => e.entry_id))
    expect(stored?.detail.changed).toEqual(diff.changed)
    expect((await store.latest()).map((version) => version.id)).toEqual([saved.version.id])
    expect((await store.diffs({ listKey: 'un' })).map((d) => d.id)).toEqual([saved.diff!.id])
  })

  it('marks an unchanged version checked without storing a new one', async () => {
    const [latest] = await store.latest()
    clock.advance(3_600_000)
    await store.markChecked(latest!.id, clock.now(), 'http://127.0.0.1/un.xml')
    const [after] = await store.latest()
    expect(after?.id).toBe(latest!.id)
    expect(after?.checked_at.toISOString()).toBe(clock.now().toISOString())
    expect(after?.source).toBe('http://127.0.0.1/un.xml')
    expect(await store.versions('un')).toHaveLength(2)
  })

  it('keeps only the newest versions of a list and every diff', async () => {
    for (let i = 0; i < 3; i++) {
      clock.advance(86_400_000)
      await store.saveVersion({
        list: i % 2 === 0 ? older : newer,
        sha256: String(i).repeat(64),
        source: 'x',
        fetchedAt: clock.now(),
        keep: 2,
      })
    }
    const versions = await store.versions('un')
    expect(versions.map((version) => version.sha256)).toEqual(['2'.repeat(64), '1'.repeat(64)])
    expect(await store.diffs({ listKey: 'un' })).toHaveLength(1)
  })

  it('lets exactly one holder claim the refresh lease until it is released or expires', async () => {
    const claims = await Promise.all([
      store.claimLease('refresh-test', 'process-a', 60_000),
      store.claimLease('refresh-test', 'process-b', 60_000),
    ])
    expect(claims.filter(Boolean)).toHaveLength(1)
    const winner = claims[0] ? 'process-a' : 'process-b'
    const loser = claims[0] ? 'process-b' : 'process-a'
    expect(await store.claimLease('refresh-test', loser, 60_000)).toBe(false)
    expect(await store.claimLease('refresh-test', winner, 60_000)).toBe(true)
    await store.releaseLease('refresh-test', loser)
    expect(await store.claimLease('refresh-test', loser, 60_000)).toBe(false)
    await store.releaseLease('refresh-test', winner)
    expect(await store.claimLease('refresh-test', loser, 60_000)).toBe(true)
    clock.advance(60_001)
    expect(await store.claimLease('refresh-test', winner, 60_000)).toBe(true)
  })
})
