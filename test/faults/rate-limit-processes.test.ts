import type { ChildProcess } from 'node:child_process'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiKeyService } from '../../core/keys/api-keys.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import { createDatabase, type Database, rowsOf } from '../../core/store/database.ts'
import { testPostgresUrl } from '../support/database.ts'
import { startPaidServerChild } from '../support/paid-server.ts'

/**
 * Two service processes on one PostgreSQL, one key with a per-minute limit of
 * 100, 400 calls spread over both at once: exactly 100 answers are not 429, every 429 carries
 * correct headers, and no 429 is charged.
 */
const PRICE = PRICES.risk_score.account.fresh
const children: ChildProcess[] = []
let database: Database | undefined

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  await database?.close()
})

describe('rate limit shared by two processes on one PostgreSQL', { timeout: 120_000 }, () => {
  it('400 calls over two processes, limit 100 per minute: exactly 100 pass, 300 are 429 with headers, none charged', async () => {
    const url = await testPostgresUrl('rl2')
    database = await createDatabase({ url, maxConnections: 2 })
    const initial = PRICE * 1_000n
    const { apiKey, record } = await createApiKeyService({
      db: database.db,
      clock: { now: () => new Date() },
    }).create({
      email: 'limit@example.com',
      tier: 'pro',
      balance: initial,
    })
    const env = { DATABASE_URL: url, RATE_LIMITS: 'on', RATE_LIMIT_PRO: '100/0/0' }
    const servers = await Promise.all([startPaidServerChild(env), startPaidServerChild(env)])
    children.push(...servers.map((server) => server.child))

    // All 400 calls inside one clock minute: start at least 40 s before the minute ends (a loaded
    // machine takes well over 15 s for them).
    const intoMinute = Date.now() % 60_000
    if (intoMinute > 20_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100))
    const minuteEnd = Math.floor(Date.now() / 60_000 + 1) * 60
    const responses = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const response = await fetch((servers[i % 2] as (typeof servers)[number]).url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-API-Key': apiKey },
          body: JSON.stringify({ text: `call ${i}` }),
        })
        return {
          status: response.status,
          headers: response.headers,
          // When the answer arrived: Retry-After is measured from then, not from when the test
          // gets to read it (400 answers on a loaded machine take seconds to go through).
          receivedAt: Date.now(),
          body: (await response.json()) as Record<string, unknown>,
        }
      }),
    )
    const passed = responses.filter((response) => response.status !== 429)
    const refused = responses.filter((response) => response.status === 429)
    expect(passed).toHaveLength(100)
    expect(passed.every((response) => response.status === 200)).toBe(true)
    // Each admitted call saw its own place in the shared count: Remaining 99 down to 0, once each.
    const remaining = passed.map((response) => Number(response.headers.get('x-ratelimit-remaining')))
    expect(new Set(remaining)).toEqual(new Set(Array.from({ length: 100 }, (_, i) => i)))
    expect(passed.every((response) => response.headers.get('x-ratelimit-limit') === '100')).toBe(true)
    // Both processes answered calls and refused calls.
    expect(refused).toHaveLength(300)
    for (const response of refused) {
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      expect(response.headers.get('x-ratelimit-limit')).toBe('100')
      expect(response.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(Number(response.headers.get('x-ratelimit-reset'))).toBe(minuteEnd)
      const retryAfter = Number(response.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(Math.abs(response.receivedAt / 1000 + retryAfter - minuteEnd)).toBeLessThanOrEqual(3)
      expect(response.body).toMatchObject({ status: 429, limit_window: 'minute' })
    }

    // Charged exactly for the 100 answers; the 300 refusals are recorded at no cost.
    const [key] = rowsOf<{ balance: string; calls: string }>(
      await database.db.execute(
        sql`select balance_micros::text as balance, call_count::text as calls from api_keys where id = ${record.id}`,
      ),
    )
    expect(BigInt(key?.balance ?? '0')).toBe(initial - PRICE * 100n)
    expect(key?.calls).toBe('100')
    const outcomes = rowsOf<{ outcome: string; n: number; cost: string }>(
      await database.db.execute(sql`select outcome, count(*)::int as n, sum(cost_micros)::text as cost
        from usage_events where key_id = ${record.id} group by outcome order by outcome`),
    )
    expect(outcomes).toEqual([
      { outcome: 'ok', n: 100, cost: (PRICE * 100n).toString() },
      { outcome: 'rate_limited', n: 300, cost: '0' },
    ])
  })
})
