import { afterAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import type { Database } from '../store/database.ts'
import { createWatchlistStore } from './watchlist-store.ts'

const databases: Database[] = []
afterAll(async () => {
  for (const database of databases) await database.close()
})

describe.each(DATABASE_KINDS)('watchlist cap on %s', (kind) => {
  it('50 concurrent adds under a cap of 20: exactly 20 stored, 30 refused with the 422 naming the cap', async () => {
    const database = await openTestDatabase(kind)
    databases.push(database)
    const store = createWatchlistStore(database.db, createManualClock('2026-03-10T10:00:00Z'), 20)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, n) =>
        store.add('key-cap', { type: 'name', value: `Name ${n}`, country: null, chain: null, label: null }),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(20)
    const refusals = outcomes.filter((outcome) => outcome.status === 'rejected')
    expect(refusals).toHaveLength(30)
    for (const refusal of refusals) {
      expect((refusal as PromiseRejectedResult).reason).toMatchObject({
        code: 'validation_failed',
        fields: [{ field: 'value', message: 'a key may watch at most 20 entries; delete some first' }],
      })
    }
    expect((await store.list('key-cap', { limit: 100, offset: 0 })).total).toBe(20)
    // Another key has its own cap; a deleted entry frees its slot at once.
    await store.add('key-cap-other', {
      type: 'name',
      value: 'Other',
      country: null,
      chain: null,
      label: null,
    })
    const [first] = (await store.list('key-cap', { limit: 1, offset: 0 })).entries
    expect(await store.remove('key-cap', first!.watchlist_id)).toBe(true)
    await store.add('key-cap', { type: 'name', value: 'Again', country: null, chain: null, label: null })
    await expect(
      store.add('key-cap', { type: 'name', value: 'Over', country: null, chain: null, label: null }),
    ).rejects.toMatchObject({ code: 'validation_failed' })
  })
})
