import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import type { KeyCaller } from '../context.ts'
import { type Database, rowsOf } from '../store/database.ts'
import {
  entityChecks,
  idempotencyRecords,
  paymentNonces,
  sanctionsListVersions,
  settlements,
  usageEvents,
} from '../store/schema.ts'
import { RETENTION_CATEGORIES, resolveRetentionDays, SEVEN_YEARS_DAYS } from './categories.ts'
import { readDataInventory } from './data-inventory.ts'
import { createRetentionJob } from './retention-job.ts'

const DAY = 86_400_000
const NOW = new Date('2027-06-01T12:00:00.000Z')
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY)

const alice: KeyCaller = { kind: 'key', keyId: 'alice', tier: 'pro', mode: 'live', role: 'customer' }
const operator: KeyCaller = { kind: 'key', keyId: 'admin', tier: 'enterprise', mode: 'live', role: 'admin' }

async function count(database: Database, table: string): Promise<number> {
  const rows = rowsOf<{ n: unknown }>(
    await database.db.execute(sql`select count(*) as n from ${sql.identifier(table)}`),
  )
  return Number(rows[0]?.n ?? 0)
}

async function seed(database: Database) {
  const { db } = database
  const usage = (keyId: string, at: Date) => ({
    keyId,
    operation: 'entity_check',
    outcome: 'ok',
    paidWith: 'key',
    latencyMs: 5,
    createdAt: at,
  })
  await db
    .insert(usageEvents)
    .values([
      usage('alice', daysAgo(500)),
      usage('alice', daysAgo(100)),
      usage('bob', daysAgo(400)),
      usage('bob', NOW),
    ])
  const check = (id: string, keyId: string, at: Date) => ({
    id,
    owner: `key:${keyId}`,
    keyId,
    operation: 'entity_check',
    entityHash: 'h',
    inputHash: 'i',
    quality: 'fresh',
    input: {},
    result: {},
    createdAt: at,
  })
  await db
    .insert(entityChecks)
    .values([check('c1', 'alice', daysAgo(366)), check('c2', 'alice', daysAgo(10))])
  const settlement = (id: string, status: string, at: Date) => ({
    id,
    paymentId: `p-${id}`,
    status,
    phase: status === 'PENDING' ? 'retrying' : 'done',
    network: 'eip155:8453',
    payer: '0xpayer',
    amountMicros: 5000n,
    operation: 'sanctions_screen',
    keyId: 'alice',
    instanceId: 'i',
    payment: {},
    createdAt: at,
  })
  await db
    .insert(settlements)
    .values([
      settlement('s-old', 'SETTLED', daysAgo(SEVEN_YEARS_DAYS + 1)),
      settlement('s-old-pending', 'PENDING', daysAgo(SEVEN_YEARS_DAYS + 1)),
      settlement('s-new', 'SETTLED', daysAgo(SEVEN_YEARS_DAYS - 1)),
    ])
  await db.insert(paymentNonces).values([
    {
      network: 'eip155:8453',
      payer: '0xpayer',
      nonce: 'n-old',
      expiresAt: daysAgo(2),
      createdAt: daysAgo(2),
    },
    { network: 'eip155:8453', payer: '0xpayer', nonce: 'n-new', expiresAt: NOW, createdAt: NOW },
  ])
  const claim = (key: string, at: Date) => ({
    keyId: 'alice',
    idempotencyKey: key,
    operation: 'leads_verify',
    requestHash: 'h',
    state: 'done',
    claimId: key,
    responseStatus: 200,
    responseBody: '{}',
    createdAt: at,
    updatedAt: at,
  })
  // Kept 24 hours: one from two days ago goes, one from an hour ago stays.
  await db
    .insert(idempotencyRecords)
    .values([claim('old', daysAgo(2)), claim('new', new Date(NOW.getTime() - 3_600_000))])
  const version = (id: string, at: Date) => ({
    id,
    listKey: 'un',
    format: 'un_xml',
    sha256: id,
    entryCount: 1,
    source: 'file',
    fetchedAt: at,
    checkedAt: at,
    entries: new Uint8Array([1]),
  })
  // Both older than a year: the newest of the list stays anyway (it is the one in use).
  await db.insert(sanctionsListVersions).values([version('v1', daysAgo(800)), version('v2', daysAgo(400))])
}

describe.each(DATABASE_KINDS)('retention job and data inventory on %s', (kind) => {
  let database: Database

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    await seed(database)
  })
  afterAll(async () => {
    await database?.close()
  })

  it('deletes exactly what is older than its retention, in bounded batches, as the clock moves', async () => {
    const clock = createManualClock(NOW)
    const job = createRetentionJob({
      db: database.db,
      clock,
      categories: RETENTION_CATEGORIES,
      retentionDays: resolveRetentionDays(RETENTION_CATEGORIES, undefined),
      batchSize: 1,
      pauseMs: 0,
    })
    const before = await readDataInventory(
      {
        db: database.db,
        clock,
        categories: RETENTION_CATEGORIES,
        retentionDays: job.retentionDays,
        nextRunAt: job.nextRunAt,
      },
      operator,
    )
    expect(before.find((item) => item.category === 'usage_logs')).toMatchObject({
      record_count: 4,
      retention_days: 395,
      oldest_record: daysAgo(500).toISOString(),
    })

    const first = await job.runOnce()
    expect(first.deleted).toMatchObject({
      usage_logs: 2,
      stored_checks: 1,
      settlements: 1,
      payment_nonces: 1,
      list_versions: 1,
      list_diffs: 0,
      idempotency_records: 1,
    })
    expect(first.deleted.key_reservations).toBeUndefined()
    // One batch per row deleted (batch size 1) plus the last, empty, batch of each category the job cleans.
    const jobCategories = RETENTION_CATEGORIES.filter((category) => category.cleanup !== 'owner').length
    const deletedRows = Object.values(first.deleted).reduce((sum, n) => sum + n, 0)
    expect(first.batches).toBe(deletedRows + jobCategories)
    expect(await count(database, 'usage_events')).toBe(2)
    const left = rowsOf<{ id: string }>(
      await database.db.execute(sql`select id from settlements order by id`),
    )
    expect(left.map((row) => row.id)).toEqual(['s-new', 's-old-pending'])
    const versions = rowsOf<{ id: string }>(
      await database.db.execute(sql`select id from sanctions_list_versions`),
    )
    expect(versions.map((row) => row.id)).toEqual(['v2'])
    const claims = rowsOf<{ idempotency_key: string }>(
      await database.db.execute(sql`select idempotency_key from idempotency_records`),
    )
    expect(claims.map((row) => row.idempotency_key)).toEqual(['new'])

    expect((await job.runOnce()).deleted.usage_logs).toBe(0)
    clock.advance(300 * DAY)
    const later = await job.runOnce()
    expect(later.deleted).toMatchObject({ usage_logs: 1, stored_checks: 0, settlements: 1, list_versions: 0 })
    expect(await count(database, 'usage_events')).toBe(1)
    expect(await count(database, 'settlements')).toBe(1)
  })

  it('shows a customer only its own records, the operator everything, public list data to both', async () => {
    const clock = createManualClock(NOW)
    await database.db.insert(usageEvents).values([
      { keyId: 'alice', operation: 'x', outcome: 'ok', paidWith: 'key', latencyMs: 1, createdAt: daysAgo(3) },
      { keyId: 'bob', operation: 'x', outcome: 'ok', paidWith: 'key', latencyMs: 1, createdAt: daysAgo(5) },
    ])
    const deps = {
      db: database.db,
      clock,
      categories: RETENTION_CATEGORIES,
      retentionDays: (category: string) => (category === 'usage_logs' ? 395 : 1),
      nextRunAt: () => new Date('2027-06-01T13:00:00.000Z'),
    }
    const mine = await readDataInventory(deps, alice)
    const all = await readDataInventory(deps, operator)
    const usageMine = mine.find((item) => item.category === 'usage_logs')
    const usageAll = all.find((item) => item.category === 'usage_logs')
    expect(usageMine).toMatchObject({ scope: 'caller', oldest_record: daysAgo(3).toISOString() })
    expect(usageAll?.scope).toBe('service')
    expect(usageAll?.record_count).toBeGreaterThan(usageMine?.record_count ?? 0)
    expect(usageMine?.next_cleanup).toBe('2027-06-01T13:00:00.000Z')
    expect(mine.find((item) => item.category === 'payment_nonces')).toMatchObject({
      record_count: 0,
      scope: 'caller',
    })
    const listsMine = mine.find((item) => item.category === 'list_versions')
    expect(listsMine).toMatchObject({ scope: 'service', record_count: 1 })
    expect(mine.map((item) => item.category)).toEqual(
      RETENTION_CATEGORIES.map((category) => category.category),
    )
  })

  it('never blocks other queries: they run between the batches of a long pass', async () => {
    const clock = createManualClock(NOW)
    await database.db.execute(sql`
      insert into usage_events (key_id, operation, outcome, paid_with, latency_ms, created_at)
      select 'bulk', 'x', 'ok', 'key', 1, ${daysAgo(1000).toISOString()}::timestamptz from generate_series(1, 3000)`)
    const job = createRetentionJob({
      db: database.db,
      clock,
      categories: RETENTION_CATEGORIES.filter((category) => category.category === 'usage_logs'),
      retentionDays: { usage_logs: 395 },
      batchSize: 100,
      pauseMs: 2,
    })
    let passDone = 0
    const pass = job.runOnce().then((report) => {
      passDone = performance.now()
      return report
    })
    const probes: number[] = []
    for (let probe = 0; probe < 5; probe++) {
      const started = performance.now()
      await database.db.execute(sql`select count(*) from api_keys`)
      probes.push(performance.now() - started)
    }
    const probesDone = performance.now()
    const report = await pass
    expect(report.deleted.usage_logs).toBe(3000)
    expect(report.batches).toBe(31)
    expect(passDone).toBeGreaterThan(probesDone)
    expect(Math.max(...probes)).toBeLessThan(1000)
  })
})

describe('RETENTION_DAYS', () => {
  it('overrides categories, and refuses unknown ones, bad values and settlements below the legal 7 years', () => {
    expect(resolveRetentionDays(RETENTION_CATEGORIES, 'usage_logs=30, stored_checks=90')).toMatchObject({
      usage_logs: 30,
      stored_checks: 90,
      settlements: SEVEN_YEARS_DAYS,
    })
    expect(() => resolveRetentionDays(RETENTION_CATEGORIES, 'shoe_sizes=3')).toThrow(
      /unknown category shoe_sizes/,
    )
    expect(() => resolveRetentionDays(RETENTION_CATEGORIES, 'usage_logs=abc')).toThrow(/category=days/)
    expect(() => resolveRetentionDays(RETENTION_CATEGORIES, 'usage_logs=0')).toThrow(/at least 1 day/)
    expect(() => resolveRetentionDays(RETENTION_CATEGORIES, 'settlements=365')).toThrow(
      /law requires at least 2557/,
    )
  })
})
