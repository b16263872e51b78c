import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Json,
  type MonitoringHarness,
  startMonitoringHarness,
} from '../support/monitoring/monitoring-harness.ts'

/**
 * The monitoring operations are MCP tools too (one registry): the same tenant rule, validation,
 * cap and answers as over REST. No list is loaded here, so screening says unavailable, never clean.
 */
describe('monitoring operations as MCP tools (pglite)', () => {
  let h: MonitoringHarness
  let key: string
  const tool = async (name: string, args: object, apiKey: string | undefined) => {
    const result = await h.service.mcp.call({ name, arguments: args } as never, apiKey)
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? 'null'
    return { isError: result.isError === true, body: JSON.parse(text) as Json }
  }

  beforeAll(async () => {
    h = await startMonitoringHarness('pglite', { WATCHLIST_MAX_ENTRIES: 2 })
    key = await h.createKey('pro')
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })

  it('answers 403 "Tenant context required" to a watchlist tool call without a key', async () => {
    const refused = await tool('watchlist_list', {}, undefined)
    expect(refused.isError).toBe(true)
    expect(JSON.stringify(refused.body)).toContain('Tenant context required')
  })

  it('adds, lists and caps the watchlist; screening without lists is unavailable, not clean', async () => {
    const first = await tool('watchlist_add', { type: 'name', value: 'Acme Trading LLC', country: 'NL' }, key)
    expect(first.isError).toBe(false)
    expect(first.body.screening).toMatchObject({ status: 'unavailable', matches_today: null })
    expect(
      (await tool('watchlist_add', { type: 'registration', value: '0202.239.951', country: 'BE' }, key))
        .isError,
    ).toBe(false)
    const third = await tool('watchlist_add', { type: 'name', value: 'One Too Many BV' }, key)
    expect(third.isError).toBe(true)
    expect(JSON.stringify(third.body)).toContain('at most 2 entries')
    const rest = await h.call('POST', '/v1/watchlist', key, { type: 'name', value: 'One Too Many BV' })
    expect(rest.status).toBe(422)
    const listed = await tool('watchlist_list', { limit: 10 }, key)
    expect(listed.body).toMatchObject({ total: 2, limit: 10, offset: 0 })
  })

  it('lists webhooks as an object over MCP and as an array over REST', async () => {
    const created = await tool(
      'webhooks_create',
      { url: h.receiver.url, events: ['certificate.expired'] },
      key,
    )
    expect(created.isError).toBe(false)
    expect(created.body.delivered_events).toEqual([])
    const listed = await tool('webhooks_list', {}, key)
    expect(listed.body.webhooks).toHaveLength(1)
    expect((await h.call('GET', '/v1/webhooks', key)).body).toEqual(listed.body.webhooks)
    const unknown = await tool('webhooks_create', { url: h.receiver.url, events: ['sanctions.*'] }, key)
    expect(unknown.isError).toBe(true)
  })

  it('caps webhooks at 100 per key under 150 concurrent registrations (422 naming url) and pages GET /v1/webhooks with a Link header', async () => {
    const owner = await h.createKey('pro')
    const attempts = await Promise.all(
      Array.from({ length: 150 }, () =>
        h.call('POST', '/v1/webhooks', owner, { url: h.receiver.url, events: ['sanctions.match.new'] }),
      ),
    )
    expect(attempts.filter((attempt) => attempt.status === 201)).toHaveLength(100)
    const refused = attempts.filter((attempt) => attempt.status !== 201)
    expect(refused).toHaveLength(50)
    for (const attempt of refused) {
      expect(attempt.status).toBe(422)
      expect(attempt.body).toMatchObject({
        detail: [{ field: 'url', message: 'a key may register at most 100 webhooks; delete some first' }],
      })
    }
    // The default page is the whole list: the spec's bare array, no Link header.
    const whole = await h.call('GET', '/v1/webhooks', owner)
    expect(whole.status).toBe(200)
    expect(whole.body).toHaveLength(100)
    expect(whole.headers.get('link')).toBeNull()
    // Pages of 40 follow the Link header to the end.
    const seen: Json[] = []
    const sizes: number[] = []
    let next: string | undefined = '/v1/webhooks?limit=40'
    while (next) {
      const page = await h.call('GET', next, owner)
      expect(page.status).toBe(200)
      expect(Array.isArray(page.body)).toBe(true)
      sizes.push((page.body as Json[]).length)
      seen.push(...(page.body as Json[]))
      next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1]
    }
    expect(sizes).toEqual([40, 40, 20])
    expect(seen).toEqual(whole.body)
    // MCP: the same page as an object with next_cursor.
    const firstPage = await tool('webhooks_list', { limit: 40 }, owner)
    expect(firstPage.body.webhooks).toEqual((whole.body as Json[]).slice(0, 40))
    expect(typeof firstPage.body.next_cursor).toBe('string')
    const bad = await h.call('GET', '/v1/webhooks?cursor=nonsense', owner)
    expect(bad.status).toBe(422)
    expect(bad.body).toMatchObject({ detail: [{ field: 'cursor' }] })
    expect((await h.call('GET', '/v1/webhooks?limit=101', owner)).status).toBe(422)
  }, 120_000)
})
