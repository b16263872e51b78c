import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase, testPostgresUrl } from '../../test/support/database.ts'
import { ephemeralSigner, type ReportSigner } from '../reports/evidence.ts'
import { createDatabase, type Database, rowsOf } from '../store/database.ts'
import { type AuditEventInput, type AuditStore, createAuditStore } from './audit-store.ts'

const DAY = 86_400_000

/** A clock the test moves. */
function testClock(start: Date) {
  let now = start.getTime()
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms
    },
  }
}

const call = (chain: string, at: Date, subject: string, amount = 1000n): AuditEventInput => ({
  chain,
  keyId: chain.replace(/^key:/, ''),
  at,
  kind: 'call',
  action: 'sanctions_screen',
  outcome: 'ok',
  subject,
  paidWith: 'account',
  amountMicros: amount,
})

describe.each(DATABASE_KINDS)('audit store (%s)', (kind) => {
  let database: Database
  let signer: ReportSigner
  let store: AuditStore
  const clock = testClock(new Date('2026-01-01T00:00:00Z'))

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    signer = await ephemeralSigner()
    store = createAuditStore({ db: database.db, clock, signer })
  })
  afterAll(async () => {
    await database?.close()
  })

  it('appends concurrent events of one chain as one unforked chain', async () => {
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => store.append(call('key:k1', clock.now(), `Subject ${i}`))),
    )
    const { rows } = await store.trail({ chain: 'key:k1', limit: 1000 })
    expect(rows.map((row) => row.seq)).toEqual(rows.map((_, i) => String(i + 1)))
    expect(await store.verify('key:k1')).toMatchObject({ ok: true, rows: 60, chains: 1 })
  })

  it('drain waits for appends under way, a new chain whose head is read first included', async () => {
    const fresh = createAuditStore({ db: database.db, clock, signer })
    for (let i = 0; i < 5; i++) void fresh.append(call('key:drained', clock.now(), `Drained ${i}`))
    await fresh.drain()
    const { rows } = await store.trail({ chain: 'key:drained', limit: 100 })
    expect(rows).toHaveLength(5)
  })

  it('drops an expired range behind a signed checkpoint, and the chain still verifies', async () => {
    const chain = 'key:k2'
    for (let i = 0; i < 5; i++) await store.append(call(chain, clock.now(), `Old ${i}`))
    clock.advance(10 * DAY)
    for (let i = 0; i < 3; i++) await store.append(call(chain, clock.now(), `New ${i}`))
    const before = (await store.trail({ chain, limit: 100 })).rows
    const dropped = await store.dropExpired(new Date(clock.now().getTime() - 5 * DAY))
    expect(dropped).toBeGreaterThanOrEqual(5)
    const after = (await store.trail({ chain, limit: 100 })).rows
    expect(after.map((row) => row.seq)).toEqual(['5', '6', '7', '8'])
    expect(after[0]).toMatchObject({
      kind: 'checkpoint',
      hash: before[4]!.hash,
      subject: null,
      detail: { dropped_from_seq: '1', dropped_through_seq: '5', dropped_rows: '5' },
    })
    expect(after[1]!.prev_hash).toBe(after[0]!.hash)
    expect(await store.verify(chain)).toMatchObject({ ok: true, checkpoints: 1, rows: 4 })
    // A second drop folds the earlier checkpoint into the new one.
    clock.advance(10 * DAY)
    await store.append(call(chain, clock.now(), 'Newest'))
    await store.dropExpired(new Date(clock.now().getTime() - 5 * DAY))
    const again = (await store.trail({ chain, limit: 100 })).rows
    expect(again.map((row) => row.seq)).toEqual(['8', '9'])
    expect(again[0]!.detail).toMatchObject({
      dropped_from_seq: '1',
      dropped_through_seq: '8',
      dropped_rows: '8',
    })
    expect(await store.verify(chain)).toMatchObject({ ok: true })
    // A forged checkpoint (its range changed) does not verify.
    await database.db.execute(
      sql`update audit_events set detail = jsonb_set(detail, '{dropped_rows}', '"2"') where chain = ${chain} and kind = 'checkpoint'`,
    )
    expect(await store.verify(chain)).toMatchObject({
      ok: false,
      first_broken: { field: 'signature', seq: '8' },
    })
  })

  it('names the row and the field altered in the database', async () => {
    const chain = 'key:k3'
    for (let i = 0; i < 4; i++) await store.append(call(chain, clock.now(), `Party ${i}`))
    const rows = (await store.trail({ chain, limit: 100 })).rows
    await database.db.execute(
      sql`update audit_events set at = at + interval '1 second' where id = ${BigInt(rows[2]!.id)}`,
    )
    expect(await store.verify(chain)).toMatchObject({
      ok: false,
      first_broken: { chain, row_id: rows[2]!.id, seq: '3', field: 'at' },
    })
    // The platform-wide verification names the first broken link of every chain.
    const all = await store.verify()
    expect(all.ok).toBe(false)
    expect(all.broken_chains.map((link) => link.chain)).toEqual(['key:k2', 'key:k3'])
    expect(all.broken_chains[1]).toMatchObject({ row_id: rows[2]!.id, field: 'at' })
  })
})

describe('audit chain appends from two processes on one PostgreSQL', () => {
  it('two pools appending to the same chains at once never fork a chain', async () => {
    const url = await testPostgresUrl('audit')
    const signer = await ephemeralSigner()
    const clock = { now: () => new Date() }
    const one = await createDatabase({ url, maxConnections: 5 })
    const two = await createDatabase({ url, maxConnections: 5 })
    try {
      const stores = [one, two].map((database) => createAuditStore({ db: database.db, clock, signer }))
      const appends: Promise<void>[] = []
      for (let round = 0; round < 20; round++) {
        for (const [index, store] of stores.entries()) {
          for (const chain of ['key:a', 'key:b']) {
            for (let i = 0; i < 5; i++) {
              appends.push(store.append(call(chain, clock.now(), `p${index} r${round} #${i}`)))
            }
          }
        }
        // Let both processes' batches interleave.
        if (round % 4 === 0) await new Promise((resolve) => setImmediate(resolve))
      }
      await Promise.all(appends)
      const counts = rowsOf<{ chain: string; rows: string; max: string; distinct_prev: string }>(
        await one.db.execute(
          sql`select chain, count(*)::text as rows, max(seq)::text as max, count(distinct prev_hash)::text as distinct_prev from audit_events group by chain order by chain`,
        ),
      )
      expect(counts).toEqual([
        { chain: 'key:a', rows: '200', max: '200', distinct_prev: '200' },
        { chain: 'key:b', rows: '200', max: '200', distinct_prev: '200' },
      ])
      expect(await stores[1]!.verify()).toMatchObject({ ok: true, chains: 2, rows: 400 })
    } finally {
      await one.close()
      await two.close()
    }
  })
})
