import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICES } from '../../core/payments/pricing.ts'
import type { Service } from '../../server/compose.ts'
import { paidRegistry } from '../support/paid-operations.ts'
import { createTestService, listen } from '../support/service.ts'
import { paymentRequiredOf, problemOf } from '../support/tool-errors.ts'

/**
 * Rate limits over REST and MCP: per-key limits by tier, 429 problem documents with
 * Retry-After and X-RateLimit-*, the same headers on successful calls, a refused call never
 * charged, and anonymous 402 challenges limited per client IP.
 */
const PRICE = PRICES.risk_score.account.fresh

/**
 * Real time, moved forward to one second into a new minute by `freshMinute()` at the start of a
 * test that counts per-minute calls, so the fixed minute window cannot turn over mid-test.
 */
let shiftMs = 0
const clock = { now: () => new Date(Date.now() + shiftMs) }
const nowSeconds = () => clock.now().getTime() / 1000
function freshMinute(): void {
  const now = clock.now().getTime()
  shiftMs += 60_000 - (now % 60_000) + 1_000
}

describe('rate limits over REST and MCP', () => {
  let service: Service

  beforeAll(async () => {
    service = await createTestService(
      'pglite',
      {
        RATE_LIMITS: 'on',
        RATE_LIMIT_PRO: '3/100/1000',
        RATE_LIMIT_STARTER: '100/2/1000',
        RATE_LIMIT_CHALLENGES_PER_MINUTE: 2,
        TRUST_PROXY_HOPS: 1,
        X402_PAY_TO: '0x1111111111111111111111111111111111111111',
        X402_NETWORKS: 'eip155:84532',
        // Never called: the tests here stop at the challenge.
        X402_FACILITATOR_URL: 'http://127.0.0.1:9/',
      },
      { operations: paidRegistry, clock },
    )
  })
  afterAll(() => service?.close())

  const echo = (apiKey: string | undefined, headers: Record<string, string> = {}) =>
    service.app.request('/v1/test/paid-echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'X-API-Key': apiKey } : {}), ...headers },
      body: JSON.stringify({ text: 'hi' }),
    })

  it('per-minute limit: X-RateLimit-* on each success, then a 429 problem with Retry-After, not charged', async () => {
    freshMinute()
    const { apiKey, record } = await service.runtime.keys.create({
      email: 'a@example.com',
      tier: 'pro',
      balance: PRICE * 10n,
    })
    const remaining: string[] = []
    for (let i = 0; i < 3; i++) {
      const response = await echo(apiKey)
      expect(response.status).toBe(200)
      expect(response.headers.get('x-ratelimit-limit')).toBe('3')
      remaining.push(response.headers.get('x-ratelimit-remaining') ?? '')
      const reset = Number(response.headers.get('x-ratelimit-reset'))
      expect(reset % 60).toBe(0)
      expect(reset).toBeGreaterThan(nowSeconds())
    }
    expect(remaining).toEqual(['2', '1', '0'])
    const refused = await echo(apiKey)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('content-type')).toBe('application/problem+json')
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3')
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeGreaterThan(nowSeconds())
    const body = (await refused.json()) as {
      status: number
      title: string
      detail: string
      limit_window: string
    }
    expect(body).toMatchObject({
      type: 'about:blank',
      status: 429,
      title: 'Too Many Requests',
      limit_window: 'minute',
    })
    expect(body.detail).toContain('3 calls per minute')
    // Free key routes count too.
    const usage = await service.app.request('/v1/keys/usage', { headers: { 'X-API-Key': apiKey } })
    expect(usage.status).toBe(429)
    const key = await service.runtime.keys.get(record.id)
    expect(key?.balanceMicros).toBe(PRICE * 7n)
    expect(key?.callCount).toBe(3n)
  })

  it('the daily-limit answer names the daily limit in detail', async () => {
    const { apiKey } = await service.runtime.keys.create({
      email: 'd@example.com',
      tier: 'starter',
      balance: PRICE * 10n,
    })
    expect((await echo(apiKey)).status).toBe(200)
    const second = await echo(apiKey)
    expect(second.headers.get('x-ratelimit-limit')).toBe('2')
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0')
    const refused = await echo(apiKey)
    expect(refused.status).toBe(429)
    const body = (await refused.json()) as { detail: string; limit_window: string }
    expect(body.limit_window).toBe('day')
    expect(body.detail).toMatch(/^daily limit exceeded: 2 calls per rolling 24 hours/)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3600 * 23 - 60)
  })

  it('MCP: the same limits; a refusal is an isError result with the problem, retryAfter and rateLimit', async () => {
    freshMinute()
    const { apiKey, record } = await service.runtime.keys.create({
      email: 'm@example.com',
      tier: 'pro',
      balance: PRICE * 10n,
    })
    const call = () => service.mcp.call({ name: 'paid_echo', arguments: { text: 'hi' } }, apiKey)
    const first = await call()
    expect(first.isError).toBeUndefined()
    expect(first._meta?.rate_limit).toMatchObject({ limit: 3, remaining: 2 })
    // REST and MCP share the key's counter.
    expect((await echo(apiKey)).headers.get('x-ratelimit-remaining')).toBe('1')
    await call()
    const refused = await call()
    expect(refused.isError).toBe(true)
    const problem = problemOf(refused)
    expect(problem).toMatchObject({ status: 429, limit_window: 'minute' })
    expect(problem?.retryAfter).toBeGreaterThanOrEqual(1)
    expect(problem?.rateLimit).toMatchObject({ limit: 3, remaining: 0 })
    expect((await service.runtime.keys.get(record.id))?.callCount).toBe(3n)
  })

  it('anonymous 402 challenges are limited per client IP (X-Forwarded-For behind one trusted proxy)', async () => {
    freshMinute()
    const from = (ip: string) => echo(undefined, { 'X-Forwarded-For': `10.0.0.9, ${ip}` })
    expect((await from('198.51.100.1')).status).toBe(402)
    expect((await from('198.51.100.1')).status).toBe(402)
    const refused = await from('198.51.100.1')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('x-ratelimit-limit')).toBe('2')
    expect(refused.headers.get('retry-after')).not.toBeNull()
    expect((await from('198.51.100.2')).status).toBe(402)
  })

  it('MCP over Streamable HTTP: anonymous 402 challenges are limited by the socket peer address', async () => {
    freshMinute()
    const server = await listen(service)
    try {
      const call = async (id: number) => {
        const response = await fetch(`${server.baseUrl}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'paid_echo', arguments: { text: 'hi' } },
          }),
        })
        return ((await response.json()) as { result: object }).result
      }
      expect(paymentRequiredOf(await call(1))).not.toBeNull()
      expect(paymentRequiredOf(await call(2))).not.toBeNull()
      const refused = await call(3)
      expect(problemOf(refused)).toMatchObject({ status: 429, rateLimit: { limit: 2, remaining: 0 } })
    } finally {
      await server.close()
    }
  })

  it('the operator key is never limited', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await service.app.request('/v1/keys/usage', {
        headers: { 'X-API-Key': service.config.ADMIN_API_KEY! },
      })
      expect(response.status).not.toBe(429)
      expect(response.headers.get('x-ratelimit-limit')).toBeNull()
    }
  })
})
