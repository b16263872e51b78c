import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import { type Database, rowsOf } from '../store/database.ts'
import { createUsageRecorder, type UsageEvent } from './usage-recorder.ts'
import { backfillUsageRollups, createUsageReports, periodStart } from './usage-reports.ts'

const STATUS: Record<string, number> = {
  ok: 200,
  undelivered: 499,
  payment_required: 402,
  validation_failed: 422,
  rate_limited: 429,
}
const options = {
  endpointOf: (operation: string) => (operation === 'entity_check' ? 'POST /v1/entity/check' : operation),
  statusOf: (outcome: string) => STATUS[outcome] ?? 500,
}

const event = (
  keyId: string | null,
  operation: string,
  outcome: string,
  cost: bigint,
  latencyMs: number,
): UsageEvent =>
  ({
    keyId,
    operation,
    outcome,
    paidWith: cost > 0n ? 'account' : 'free',
    costMicros: cost,
    latencyMs,
  }) as UsageEvent

describe('periodStart (UTC calendar periods)', () => {
  const now = new Date('2026-11-25T08:30:00Z') // a Wednesday
  it('day, ISO week from Monday, month from the 1st', () => {
    expect(periodStart('day', now).toISOString()).toBe('2026-11-25T00:00:00.000Z')
    expect(periodStart('week', now).toISOString()).toBe('2026-11-23T00:00:00.000Z')
    expect(periodStart('month', now).toISOString()).toBe('2026-11-01T00:00:00.000Z')
    expect(periodStart('week', new Date('2026-11-29T23:00:00Z')).toISOString()).toBe(
      '2026-11-23T00:00:00.000Z',
    )
  })
})

describe.each(DATABASE_KINDS)('usage reports on %s', (kind) => {
  let database: Database
  afterAll(() => database?.close())

  it('rolls up recorded calls per key in the same statement; a key sees only its own usage', async () => {
    database = await openTestDatabase(kind)
    const recorder = createUsageRecorder(database.db)
    const reports = createUsageReports(database.db, options)
    await Promise.all([
      recorder.record(event('k1', 'entity_check', 'ok', 580_000n, 40)),
      recorder.record(event('k1', 'entity_check', 'ok', 580_000n, 60)),
      recorder.record(event('k1', 'entity_check', 'validation_failed', 0n, 2)),
      recorder.record(event('k1', 'keys_usage', 'rate_limited', 0n, 1)),
      recorder.record(event('k2', 'entity_check', 'ok', 580_000n, 30)),
      recorder.record(event(null, 'entity_check', 'ok', 200_000n, 30)),
    ])
    await recorder.record(event('k1', 'entity_check', 'payment_required', 0n, 5))
    const summary = await reports.summary('k1', 'day', new Date())
    expect(summary).toMatchObject({
      period: 'day',
      total_calls: 5,
      total_cost_micros: 1_160_000,
      total_cost_usd: 1.16,
      avg_latency_ms: 21.6,
      endpoint_counts: { 'POST /v1/entity/check': 4, keys_usage: 1 },
      calls_by_status: { '200': 2, '402': 1, '422': 1, '429': 1 },
    })
    expect(await reports.endpoints('k1')).toEqual({ 'POST /v1/entity/check': 4, keys_usage: 1 })
    expect(await reports.endpoints('k2')).toEqual({ 'POST /v1/entity/check': 1 })
    expect(await reports.summary('nobody', 'month', new Date())).toMatchObject({
      total_calls: 0,
      avg_latency_ms: 0,
      endpoint_counts: {},
    })
  })

  it('a period starts at its UTC boundary: calls of earlier hours are left out', async () => {
    await database.db.execute(sql`insert into usage_rollups values
      ('k3', '2026-11-24T23:00:00Z', 'entity_check', 'ok', 7, 0, 70),
      ('k3', '2026-11-25T00:00:00Z', 'entity_check', 'ok', 2, 0, 20),
      ('k3', '2026-10-31T23:00:00Z', 'entity_check', 'ok', 100, 0, 100)`)
    const reports = createUsageReports(database.db, options)
    const now = new Date('2026-11-25T08:00:00Z')
    expect((await reports.summary('k3', 'day', now)).total_calls).toBe(2)
    expect((await reports.summary('k3', 'week', now)).total_calls).toBe(9)
    expect((await reports.summary('k3', 'month', now)).total_calls).toBe(9)
    expect((await reports.endpoints('k3'))['POST /v1/entity/check']).toBe(109)
  })

  it('an answer not delivered: its row becomes undelivered (a released debit costs nothing), and the rollup moves with it', async () => {
    const own = await openTestDatabase(kind)
    const db = own.db
    const recorder = createUsageRecorder(db)
    const reports = createUsageReports(db, options)
    const paid = event('k9', 'entity_check', 'ok', 580_000n, 40)
    const x402 = { ...event(null, 'entity_check', 'ok', 200_000n, 30), paidWith: 'x402' } as UsageEvent
    await Promise.all([recorder.record(paid), recorder.record(paid), recorder.record(x402)])
    await recorder.undelivered!(paid, 0n)
    await recorder.undelivered!(x402, 200_000n)
    const rows = rowsOf(
      await db.execute(sql`select key_id, outcome, paid_with, cost_micros::text as cost
        from usage_events order by key_id nulls first, outcome`),
    )
    expect(rows).toEqual([
      { key_id: null, outcome: 'undelivered', paid_with: 'x402', cost: '200000' },
      { key_id: 'k9', outcome: 'ok', paid_with: 'account', cost: '580000' },
      { key_id: 'k9', outcome: 'undelivered', paid_with: 'account', cost: '0' },
    ])
    expect(await reports.summary('k9', 'day', new Date())).toMatchObject({
      total_calls: 2,
      total_cost_micros: 580_000,
      avg_latency_ms: 40,
      calls_by_status: { '200': 1, '499': 1 },
    })
    // The other call with the same record, reported undelivered too, moves the other row.
    await recorder.undelivered!(paid, 0n)
    expect((await reports.summary('k9', 'day', new Date())).calls_by_status).toEqual({ '499': 2 })
    await own.close()
  })

  it('backfills the rollup from the log once, only when the rollup is empty', async () => {
    const fresh = await openTestDatabase(kind)
    try {
      await fresh.db.execute(sql`insert into usage_events (key_id, operation, outcome, paid_with, cost_micros, latency_ms)
        values ('k1', 'entity_check', 'ok', 'account', 10, 5), ('k1', 'entity_check', 'ok', 'account', 10, 7),
               (null, 'entity_check', 'ok', 'x402', 10, 7)`)
      expect(await backfillUsageRollups(fresh.db)).toBe(1)
      expect(await backfillUsageRollups(fresh.db)).toBe(0)
      const summary = await createUsageReports(fresh.db, options).summary('k1', 'day', new Date())
      expect(summary).toMatchObject({ total_calls: 2, total_cost_micros: 20, avg_latency_ms: 6 })
    } finally {
      await fresh.close()
    }
  })
})
