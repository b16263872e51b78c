import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../core/store/database.ts'
import { backfillUsageRollups, periodStart } from '../../core/usage/usage-reports.ts'
import type { Service } from '../../server/compose.ts'
import { createTestService } from '../support/service.ts'
import { problemOf } from '../support/tool-errors.ts'

/** The usage operations over REST and MCP, and their speed on 1,000,000 usage rows. */

describe('GET /v1/usage/summary and /v1/usage/endpoints', () => {
  let service: Service
  beforeAll(async () => {
    service = await createTestService('pglite')
  })
  afterAll(() => service?.close())

  const get = (path: string, apiKey?: string) =>
    service.app.request(path, { headers: apiKey ? { 'X-API-Key': apiKey } : {} })

  it("reports the calling key's calls by endpoint and status, REST and MCP together, and nobody else's", async () => {
    const { apiKey } = await service.runtime.keys.create({ email: 'u@example.com', tier: 'free' })
    const other = await service.runtime.keys.create({ email: 'o@example.com', tier: 'free' })
    expect((await get('/v1/keys/usage', apiKey)).status).toBe(200)
    expect((await get('/v1/keys/usage', apiKey)).status).toBe(200)
    expect((await get('/v1/keys/usage', other.apiKey)).status).toBe(200)
    const bad = await get('/v1/usage/summary?period=year', apiKey)
    expect(bad.status).toBe(422)
    expect(((await bad.json()) as { detail: { field: string }[] }).detail[0]?.field).toBe('period')
    const mcp = await service.mcp.call({ name: 'usage_summary', arguments: { period: 'week' } }, apiKey)
    expect(mcp.isError).toBeUndefined()
    expect(mcp.structuredContent).toMatchObject({ period: 'week', total_calls: 3 })

    const response = await get('/v1/usage/summary', apiKey)
    expect(response.status).toBe(200)
    const summary = (await response.json()) as Record<string, unknown>
    expect(summary).toMatchObject({
      period: 'day',
      total_calls: 4,
      total_cost_usd: 0,
      endpoint_counts: { 'GET /v1/keys/usage': 2, 'GET /v1/usage/summary': 2 },
      calls_by_status: { '200': 3, '422': 1 },
    })
    expect(summary.avg_latency_ms).toBeGreaterThanOrEqual(0)
    expect(summary.from).toBe(periodStart('day', new Date()).toISOString())

    const endpoints = await get('/v1/usage/endpoints', apiKey)
    expect(await endpoints.json()).toEqual({ 'GET /v1/keys/usage': 2, 'GET /v1/usage/summary': 3 })
    expect(await (await get('/v1/usage/endpoints', other.apiKey)).json()).toEqual({ 'GET /v1/keys/usage': 1 })
  })

  it('needs a key: 401 without one, over REST and MCP', async () => {
    expect((await get('/v1/usage/summary')).status).toBe(401)
    expect((await get('/v1/usage/endpoints')).status).toBe(401)
    const mcp = await service.mcp.call({ name: 'usage_endpoints', arguments: {} }, undefined)
    expect(problemOf(mcp)?.status).toBe(401)
  })
})

describe('usage summary on 1,000,000 usage rows (PostgreSQL)', { timeout: 120_000 }, () => {
  let service: Service
  beforeAll(async () => {
    service = await createTestService('postgres')
  })
  afterAll(() => service?.close())

  it('answers each period from the hourly rollup, several times faster than reading the log (query plan printed)', async () => {
    const db = service.database.db
    const { apiKey, record } = await service.runtime.keys.create({ email: 'big@example.com', tier: 'pro' })
    // 600,000 rows of this key over the last 35 days (one a minute, four operations, seven
    // outcomes), 400,000 of 100 other keys.
    await db.execute(sql`insert into usage_events (key_id, operation, outcome, paid_with, cost_micros, latency_ms, created_at)
      select case when g % 5 < 3 then ${record.id} else 'other_' || (g % 100) end,
        (array['entity_check','risk_score','sanctions_screen','kyb_check'])[1 + g % 4],
        (array['ok','ok','ok','ok','validation_failed','payment_required','rate_limited'])[1 + g % 7],
        'account', 110000, 20 + g % 50,
        now() - ((g / 5 * 3 + g % 5) % (35 * 24 * 60)) * interval '1 minute'
      from generate_series(1, 1000000) as g`)
    // The rollup the recorder keeps call by call, built here in one statement from the same rows.
    await db.execute(sql`truncate usage_rollups`)
    expect(await backfillUsageRollups(db)).toBeGreaterThan(0)
    await db.execute(sql`analyze usage_rollups`)
    const [events] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from usage_events`))
    expect(events?.n).toBeGreaterThanOrEqual(1_000_000)

    const figures: Record<string, number> = {}
    for (const period of ['day', 'week', 'month'] as const) {
      await service.app.request(`/v1/usage/summary?period=${period}`, { headers: { 'X-API-Key': apiKey } })
      const times: number[] = []
      let body: { total_calls: number; from: string } | undefined
      for (let i = 0; i < 5; i++) {
        const started = performance.now()
        const response = await service.app.request(`/v1/usage/summary?period=${period}`, {
          headers: { 'X-API-Key': apiKey },
        })
        body = (await response.json()) as { total_calls: number; from: string }
        times.push(performance.now() - started)
      }
      times.sort((a, b) => a - b)
      figures[period] = Math.round((times[2] ?? 0) * 10) / 10
      // The rollup agrees with the log (which also holds the last summary call, recorded after its answer).
      const [truth] = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from usage_events
          where key_id = ${record.id} and created_at >= ${body?.from}::timestamptz`),
      )
      expect(body?.total_calls).toBe((truth?.n ?? 0) - 1)
    }
    // The median of five, as for the periods: one sample can meet a collection or a busy neighbour.
    const endpointTimes: number[] = []
    let endpoints: Response | undefined
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      endpoints = await service.app.request('/v1/usage/endpoints', { headers: { 'X-API-Key': apiKey } })
      if (i < 4) await endpoints.arrayBuffer()
      endpointTimes.push(performance.now() - started)
    }
    endpointTimes.sort((a, b) => a - b)
    figures.endpoints = Math.round((endpointTimes[2] ?? 0) * 10) / 10
    // Measured against the same month read from the raw log in this run (a ratio, not a time bound:
    // the machine may be busy): the rollup answers at least five times faster.
    const rawTimes: number[] = []
    for (let i = 0; i < 3; i++) {
      const rawStarted = performance.now()
      await db.execute(sql`select operation, outcome, count(*), sum(cost_micros), sum(latency_ms)
        from usage_events where key_id = ${record.id}
          and created_at >= ${periodStart('month', new Date()).toISOString()}::timestamptz
        group by operation, outcome`)
      rawTimes.push(performance.now() - rawStarted)
    }
    rawTimes.sort((a, b) => a - b)
    figures.raw_log_month = Math.round((rawTimes[1] ?? 0) * 10) / 10
    expect(figures.month).toBeLessThan(figures.raw_log_month / 5)
    expect(figures.endpoints).toBeLessThan(figures.raw_log_month / 5)
    expect(
      Object.values((await endpoints!.json()) as Record<string, number>).reduce((a, b) => a + b, 0),
    ).toBeGreaterThan(600_000)

    const plan = rowsOf<{ 'QUERY PLAN': string }>(
      await db.execute(sql`explain (analyze, buffers) select operation, outcome, sum(calls), sum(cost_micros), sum(latency_ms_sum)
        from usage_rollups where key_id = ${record.id} and hour >= ${periodStart('month', new Date()).toISOString()}::timestamptz
        group by operation, outcome`),
    )
      .map((row) => row['QUERY PLAN'])
      .join('\n')
    expect(plan).toMatch(
      /Index (Only )?Scan using usage_rollups_key_id_hour_operation_outcome_pk|Bitmap Index Scan on usage_rollups_key_id_hour_operation_outcome_pk/,
    )
    expect(plan).not.toMatch(/usage_events/)
    console.log(
      `usage summary on 1,000,000 usage rows, median of 5 HTTP calls (ms): ${JSON.stringify(figures)}\n${plan}`,
    )
  })
})
