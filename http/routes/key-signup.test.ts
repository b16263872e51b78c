import { afterAll, describe, expect, it } from 'vitest'
import type { Service } from '../../server/compose.ts'
import { DATABASE_KINDS } from '../../test/support/database.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createTestService } from '../../test/support/service.ts'

const services: Service[] = []
afterAll(async () => {
  for (const service of services) await service.close()
})

describe.each(DATABASE_KINDS)('self-service key creation is bounded (%s)', (kind) => {
  const create = (service: Service, address: string, email: string) =>
    service.app.request('/v1/keys/create', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ email, tier: 'sandbox' }),
    })

  it('100 creations from one address in a minute: 5 keys, 95 × 429 with Retry-After and X-RateLimit-*; one mailbox from many addresses: 3', async () => {
    const clock = createManualClock('2026-03-10T10:00:05Z')
    // One proxy in front: the client address is the X-Forwarded-For entry it appended.
    const service = await createTestService(kind, { RATE_LIMITS: 'on', TRUST_PROXY_HOPS: 1 }, { clock })
    services.push(service)
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, n) => create(service, '198.51.100.20', `person${n}@example.com`)),
    )
    const created = responses.filter((response) => response.status === 201)
    const refused = responses.filter((response) => response.status === 429)
    expect(created).toHaveLength(5)
    expect(refused).toHaveLength(95)
    for (const response of refused) {
      expect(response.headers.get('retry-after')).toBe('55')
      expect(response.headers.get('x-ratelimit-limit')).toBe('5')
      expect(response.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(response.headers.get('x-ratelimit-reset')).toBe(
        String(Date.parse('2026-03-10T10:01:00Z') / 1000),
      )
    }
    const problem = (await refused[0]!.json()) as { status: number; detail: string }
    expect(problem).toMatchObject({
      status: 429,
      detail: expect.stringContaining('key creations from one client address'),
    })
    // Successful creations report the tightest limit: the address's minute (4, 3, 2, 1, 0 left) or
    // the e-mail's day (2 left for each new mailbox).
    const remaining = created.map((response) => response.headers.get('x-ratelimit-remaining')).sort()
    expect(remaining).toEqual(['0', '1', '2', '2', '2'])

    // The same mailbox in trivial variants, each from its own address: 3 keys per rolling 24 hours.
    const variants = [
      'Owner@Example.com',
      'owner+sandbox@example.com',
      'OWNER+2@EXAMPLE.COM',
      'owner@example.com',
      'owner+x@example.com',
    ]
    const statuses = []
    for (const [n, email] of variants.entries())
      statuses.push((await create(service, `203.0.113.${n + 1}`, email)).status)
    expect(statuses).toEqual([201, 201, 201, 429, 429])
    const byMail = await create(service, '203.0.113.99', 'owner@example.com')
    expect(byMail.headers.get('x-ratelimit-limit')).toBe('3')
    expect(await byMail.json()).toMatchObject({
      detail: expect.stringContaining('key creations for one e-mail'),
    })

    // A malformed body is refused before it is counted.
    const bad = await service.app.request('/v1/keys/create', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.200' },
      body: JSON.stringify({ email: 'not-an-email', tier: 'sandbox' }),
    })
    expect(bad.status).toBe(422)
    // A new minute frees the address (each creation a new mailbox).
    clock.advance(60_000)
    expect((await create(service, '198.51.100.20', 'later@example.com')).status).toBe(201)
  })
})
