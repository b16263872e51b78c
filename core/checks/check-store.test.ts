import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import type { Caller } from '../context.ts'
import type { Database } from '../store/database.ts'
import { type CheckStore, createCheckStore, ownerOf, type StoredCheck } from './check-store.ts'
import { entityHash, inputHash } from './entity-hash.ts'
import { getReputationHistory } from './reputation-history.ts'

const alice: Caller = { kind: 'key', keyId: 'alice', tier: 'pro', mode: 'live', role: 'customer' }
const bob: Caller = { kind: 'key', keyId: 'bob', tier: 'pro', mode: 'live', role: 'customer' }
const HASH = entityHash({ country: 'NL', kind: 'kvk', id: '68750110' })
const INPUT = inputHash('entity_check', {
  entity_name: 'Test BV Donald',
  country: 'NL',
  kvk_number: '68750110',
})

function check(
  caller: Caller,
  id: string,
  createdAt: string,
  overrides: Partial<StoredCheck> = {},
): StoredCheck {
  const owner = ownerOf(caller)
  if (!owner) throw new Error('no owner')
  return {
    id,
    owner: owner.owner,
    keyId: owner.keyId,
    operation: 'entity_check',
    entityHash: HASH,
    inputHash: INPUT,
    quality: 'fresh',
    input: { entity_name: 'Test BV Donald' },
    result: { trust_score: 80, cluster: 'low_risk', sources_checked: 4 },
    trustScore: 80,
    createdAt: new Date(createdAt),
    ...overrides,
  }
}

describe.each(DATABASE_KINDS)('check store on %s', (kind) => {
  let database: Database
  let store: CheckStore

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    store = createCheckStore(database.db)
    await store.save(check(alice, 'a1', '2026-01-01T10:00:00Z'))
    await store.save(
      check(alice, 'a2', '2026-01-03T10:00:00Z', { trustScore: 70, result: { trust_score: 70 } }),
    )
    await store.save(
      check(alice, 'a3', '2026-01-04T10:00:00Z', { operation: 'kyb_check', inputHash: 'other' }),
    )
    await store.save(check(bob, 'b1', '2026-01-05T10:00:00Z'))
  })
  afterAll(async () => {
    await database?.close()
  })

  it('finds the newest result of the same inputs for the same owner since a time', async () => {
    const owner = ownerOf(alice)?.owner as string
    expect((await store.findRecent(owner, 'entity_check', INPUT, new Date('2026-01-01T00:00:00Z')))?.id).toBe(
      'a2',
    )
    expect(await store.findRecent(owner, 'entity_check', INPUT, new Date('2026-01-03T10:00:01Z'))).toBeNull()
    expect(await store.findRecent(owner, 'entity_check', 'nope', new Date(0))).toBeNull()
  })

  it("never returns another owner's check as a cached result", async () => {
    const carol = ownerOf({ kind: 'key', keyId: 'carol', tier: 'pro', mode: 'live', role: 'customer' })
    expect(await store.findRecent(carol?.owner as string, 'entity_check', INPUT, new Date(0))).toBeNull()
  })

  it('lists an owner’s history of an entity newest first, with totals, pages and an operation filter', async () => {
    const owner = ownerOf(alice)?.owner as string
    const all = await store.history(owner, HASH)
    expect(all.total).toBe(3)
    expect(all.checks.map((c) => c.id)).toEqual(['a3', 'a2', 'a1'])
    expect(all.checks[1]?.createdAt.toISOString()).toBe('2026-01-03T10:00:00.000Z')
    expect((await store.history(owner, HASH, { limit: 1, offset: 1 })).checks.map((c) => c.id)).toEqual([
      'a2',
    ])
    const entityOnly = await store.history(owner, HASH, { operations: ['entity_check'] })
    expect(entityOnly.checks.map((c) => c.id)).toEqual(['a2', 'a1'])
  })

  it('answers the history route per key and 404 for an unknown hash or another key', async () => {
    const history = await getReputationHistory(store, alice, HASH)
    expect(history.total).toBe(3)
    expect(history.checks[1]).toMatchObject({ check_id: 'a2', trust_score: 70, operation: 'entity_check' })
    const bobs = await getReputationHistory(store, bob, HASH)
    expect(bobs.checks.map((c) => c.check_id)).toEqual(['b1'])
    const carol: Caller = { kind: 'key', keyId: 'carol', tier: 'pro', mode: 'live', role: 'customer' }
    await expect(getReputationHistory(store, carol, HASH)).rejects.toMatchObject({ code: 'not_found' })
    await expect(getReputationHistory(store, alice, 'f'.repeat(64))).rejects.toMatchObject({
      code: 'not_found',
    })
    await expect(getReputationHistory(store, alice, 'not-a-hash')).rejects.toMatchObject({
      code: 'not_found',
    })
  })
})
