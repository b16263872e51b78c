import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase, testPostgresUrl } from '../../test/support/database.ts'
import { ServiceError } from '../errors.ts'
import { usd } from '../money.ts'
import { createDatabase, type Database, preparedRunner, rowsOf } from '../store/database.ts'
import { type ApiKeyService, createApiKeyService } from './api-keys.ts'
import { createDeliveryJournal } from './delivery-journal.ts'
import { createKeyReservations, type KeyReservations } from './reservations.ts'

describe.each(DATABASE_KINDS)('key reservations on %s', (kind) => {
  let database: Database
  let keys: ApiKeyService
  let reservations: KeyReservations

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    keys = createApiKeyService({ db: database.db, clock: { now: () => new Date() } })
    reservations = createKeyReservations({ db: database.db, instanceId: 'this-process' })
  })
  afterAll(async () => {
    await database?.close()
  })

  async function openReservations(keyId: string): Promise<number> {
    const rows = rowsOf<{ n: unknown }>(
      await database.db.execute(
        sql`select count(*)::int as n from key_reservations where key_id = ${keyId} and captured_at is null`,
      ),
    )
    return Number(rows[0]?.n)
  }

  it('reserves exactly and never below zero; a release gives the amount back once', async () => {
    const { record } = await keys.create({ email: 'f@example.com', tier: 'starter', balance: usd('0.25') })
    const first = await reservations.reserve(record.id, usd('0.11'), 'op')
    const second = await reservations.reserve(record.id, usd('0.11'), 'op')
    expect(first?.balance).toBe(usd('0.14'))
    expect(second?.balance).toBe(usd('0.03'))
    expect(await reservations.reserve(record.id, usd('0.11'), 'op')).toBeNull()
    await reservations.capture(first!.id)
    await Promise.all([reservations.release(second!.id), reservations.release(second!.id)])
    await reservations.release(second!.id)
    expect(await keys.get(record.id)).toMatchObject({
      balanceMicros: usd('0.14'),
      spentMicros: usd('0.11'),
      callCount: 1n,
    })
    expect(await openReservations(record.id)).toBe(0)
  })

  it('refuses to capture a reservation that was released: no answer without payment', async () => {
    const { record } = await keys.create({ email: 'g@example.com', tier: 'starter', balance: usd('1') })
    const held = await reservations.reserve(record.id, usd('0.10'), 'op')
    await reservations.release(held!.id)
    const error = await reservations.capture(held!.id).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServiceError)
    expect((error as ServiceError).code).toBe('unavailable')
    expect((await keys.get(record.id))?.balanceMicros).toBe(usd('1'))
  })

  it('undoes a capture whose commit was in doubt, once, and deletes captured rows after a minute', async () => {
    const { record } = await keys.create({ email: 'l@example.com', tier: 'pro', balance: usd('1') })
    const doubtful = await reservations.reserve(record.id, usd('0.30'), 'op')
    const kept = await reservations.reserve(record.id, usd('0.20'), 'op')
    await reservations.capture(doubtful!.id)
    await reservations.capture(kept!.id)
    // The capture committed but its caller saw the connection drop and answered 503: release it.
    await reservations.release(doubtful!.id)
    await reservations.release(doubtful!.id)
    expect(await keys.get(record.id)).toMatchObject({ balanceMicros: usd('0.80'), spentMicros: usd('0.20') })
    await database.db.execute(
      sql`update key_reservations set captured_at = now() - interval '2 minutes' where id = ${kept!.id}`,
    )
    await reservations.sweep(async () => true)
    const left = rowsOf<{ n: unknown }>(
      await database.db.execute(
        sql`select count(*)::int as n from key_reservations where key_id = ${record.id}`,
      ),
    )
    expect(Number(left[0]?.n)).toBe(0)
    expect((await keys.get(record.id))?.balanceMicros).toBe(usd('0.80'))
  })

  it('reserves concurrent calls of one key together, each reporting the balance after its own debit', async () => {
    const { record } = await keys.create({ email: 'h@example.com', tier: 'pro', balance: usd('1') })
    const results = await Promise.all([1, 2, 3].map(() => reservations.reserve(record.id, usd('0.11'), 'op')))
    expect(results.map((result) => result?.balance ?? -1n).sort()).toEqual([
      usd('0.67'),
      usd('0.78'),
      usd('0.89'),
    ])
    expect(await keys.get(record.id)).toMatchObject({ balanceMicros: usd('0.67'), spentMicros: usd('0.33') })
    expect(await openReservations(record.id)).toBe(3)
  })

  it('serves exactly 500 of 1,000 concurrent reservations when the balance covers 500', async () => {
    const price = usd('0.11')
    const { record } = await keys.create({ email: 'i@example.com', tier: 'pro', balance: price * 500n })
    const results = await Promise.all(
      Array.from({ length: 1000 }, () => reservations.reserve(record.id, price, 'op')),
    )
    expect(results.filter((result) => result !== null)).toHaveLength(500)
    expect(await keys.get(record.id)).toMatchObject({ balanceMicros: 0n, spentMicros: price * 500n })
    expect(await openReservations(record.id)).toBe(500)
  })

  it("sweeps a dead process's reservations back to the key and leaves a live one's alone", async () => {
    const { record } = await keys.create({ email: 'j@example.com', tier: 'pro', balance: usd('1') })
    const dead = createKeyReservations({ db: database.db, instanceId: 'dead-process' })
    const live = createKeyReservations({ db: database.db, instanceId: 'live-process' })
    await dead.reserve(record.id, usd('0.20'), 'op')
    await dead.reserve(record.id, usd('0.30'), 'op')
    const kept = await live.reserve(record.id, usd('0.05'), 'op')
    const released = await reservations.sweep(async (instance) => instance === 'live-process')
    expect(released).toBe(2)
    expect(await keys.get(record.id)).toMatchObject({
      balanceMicros: usd('0.95'),
      spentMicros: usd('0.05'),
      callCount: 1n,
    })
    await live.capture(kept!.id)
    expect(await reservations.sweep(async () => false)).toBe(0)
    expect((await keys.get(record.id))?.balanceMicros).toBe(usd('0.95'))
  })

  it("captures what a dead process's delivery journal lists and releases the rest", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'deliveries-'))
    try {
      const { record } = await keys.create({ email: 'jj@example.com', tier: 'pro', balance: usd('1') })
      const deadJournal = createDeliveryJournal({ dir, instanceId: 'killed-process' })
      const flaky = { down: false }
      // The killed process: its answer's capture never reached the database (killed before it did).
      const dead = createKeyReservations({
        db: new Proxy(database.db, {
          get: (target, property, receiver) =>
            (property === 'execute' || property === preparedRunner) && flaky.down
              ? () => new Promise(() => {})
              : Reflect.get(target, property, receiver),
        }),
        instanceId: 'killed-process',
        journal: deadJournal,
      })
      const delivered = await dead.reserve(record.id, usd('0.20'), 'op')
      const undelivered = await dead.reserve(record.id, usd('0.30'), 'op')
      flaky.down = true
      void dead.capture(delivered!.id)
      expect(readdirSync(dir)).toEqual(['killed-process.0.log'])

      const sweeper = createKeyReservations({
        db: database.db,
        instanceId: 'next-process',
        journal: createDeliveryJournal({ dir, instanceId: 'next-process' }),
      })
      expect(await sweeper.sweep(async (instance) => instance !== 'killed-process')).toBe(1)
      expect(await keys.get(record.id)).toMatchObject({
        balanceMicros: usd('0.80'),
        spentMicros: usd('0.20'),
        callCount: 1n,
      })
      expect(await openReservations(record.id)).toBe(0)
      expect(undelivered).not.toBeNull()
      expect(readdirSync(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('keeps a release the database refused and writes it on the next sweep', async () => {
    const { record } = await keys.create({ email: 'k@example.com', tier: 'pro', balance: usd('1') })
    const held = await reservations.reserve(record.id, usd('0.40'), 'op')
    const errors: unknown[] = []
    let down = true
    // The same database, but its statements fail while `down`, as when PostgreSQL is unreachable.
    const flaky = createKeyReservations({
      db: new Proxy(database.db, {
        get: (target, property, receiver) =>
          (property === 'execute' || property === preparedRunner) && down
            ? () => Promise.reject(new Error('connection refused'))
            : Reflect.get(target, property, receiver),
      }),
      instanceId: 'this-process',
      onError: (error) => errors.push(error),
    })
    await flaky.release(held!.id)
    expect(errors).toHaveLength(1)
    expect(flaky.pendingReleases()).toBe(1)
    expect((await keys.get(record.id))?.balanceMicros).toBe(usd('0.60'))
    down = false
    expect(await flaky.sweep(async () => true)).toBe(1)
    expect(flaky.pendingReleases()).toBe(0)
    expect((await keys.get(record.id))?.balanceMicros).toBe(usd('1'))
  })
})

describe('key reservations from two pools on one PostgreSQL (as two processes share it)', () => {
  it('serves exactly 50 of 1,000 concurrent calls on a key funded for 50, split across both', async () => {
    const url = await testPostgresUrl()
    const first = await createDatabase({ url, maxConnections: 10 })
    const second = await createDatabase({ url, maxConnections: 10 })
    try {
      const price = usd('0.11')
      const keys = createApiKeyService({ db: first.db, clock: { now: () => new Date() } })
      const { record } = await keys.create({ email: 'two@example.com', tier: 'pro', balance: price * 50n })
      const here = createKeyReservations({ db: first.db, instanceId: 'process-a' })
      const there = createKeyReservations({ db: second.db, instanceId: 'process-b' })
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? here : there).reserve(record.id, price, 'op')),
      )
      expect(results.filter((result) => result !== null)).toHaveLength(50)
      expect(await keys.get(record.id)).toMatchObject({ balanceMicros: 0n, spentMicros: price * 50n })
      const rows = rowsOf<{ n: unknown }>(
        await first.db.execute(
          sql`select count(*)::int as n from key_reservations where key_id = ${record.id}`,
        ),
      )
      expect(Number(rows[0]?.n)).toBe(50)
    } finally {
      await first.close()
      await second.close()
    }
  })
})
