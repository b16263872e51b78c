import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type FakeRdapServer, startFakeRdapServer } from '../../test/support/fakes/fake-rdap-server.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { REFUSED_URL } from '../../test/support/fakes/refused-address.ts'
import { createRdapClient, normaliseDomain } from './rdap.ts'

let fake: FakeRdapServer
const clock = createManualClock('2025-06-01T12:00:00.000Z')

beforeAll(async () => {
  fake = await startFakeRdapServer()
})
afterAll(async () => {
  await fake.close()
})
beforeEach(() => {
  fake.behave({ mode: 'normal', delayMs: 0, error: undefined })
})

const client = (overrides: Partial<Parameters<typeof createRdapClient>[0]> = {}) =>
  createRdapClient({
    bootstrapUrl: fake.bootstrapUrl,
    timeoutMs: 2000,
    clock,
    allowPrivateAddresses: true,
    breaker: { failureThreshold: 100 },
    ...overrides,
  })

describe('RDAP domain lookup', () => {
  it('reads registration, expiry, registrar and age from the registry answer', async () => {
    const result = await client().lookupDomain('Example.COM.')
    expect(result).toMatchObject({
      source: 'rdap',
      status: 'ok',
      data: {
        domain: 'example.com',
        registered: true,
        registrar: 'RESERVED-Internet Assigned Numbers Authority',
        registrar_iana_id: '376',
        registered_at: '1995-08-14T04:00:00.000Z',
        expires_at: '2025-08-13T04:00:00.000Z',
        last_changed_at: '2024-08-14T07:01:34.000Z',
        nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
      },
    })
    const expectedAge = Math.floor(
      (Date.parse('2025-06-01T12:00:00Z') - Date.parse('1995-08-14T04:00:00Z')) / 86_400_000,
    )
    expect(result.status === 'ok' && result.data.domain_age_days).toBe(expectedAge)
    const sent = fake.requests.at(-1)!
    expect(sent.path).toBe('/rdap/domain/example.com')
    expect(sent.headers.accept).toContain('application/rdap+json')
  })

  it('computes a young domain age from the injected clock', async () => {
    const result = await client().lookupDomain('voorbeeld.nl')
    expect(result).toMatchObject({
      status: 'ok',
      data: { domain_age_days: 396, expires_at: null, registrar: 'Voorbeeld Registrar B.V.' },
    })
  })

  it('answers a 404 as registered: false, an ok answer', async () => {
    const result = await client().lookupDomain('nonexistent-name.nl')
    expect(result).toMatchObject({ status: 'ok', data: { registered: false, domain_age_days: null } })
  })

  it('reports a TLD the bootstrap does not cover as no_rdap_server without opening the circuit', async () => {
    const rdap = client({ breaker: { failureThreshold: 1 } })
    const result = await rdap.lookupDomain('example.de')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'no_rdap_server' })
    expect(rdap.breaker.state()).toBe('closed')
  })

  it('fetches the bootstrap once and reuses it within the TTL, then refreshes', async () => {
    const ttlClock = createManualClock()
    const rdap = client({ clock: ttlClock, bootstrapTtlMs: 60_000 })
    const count = () => fake.requests.filter((r) => r.path === '/dns.json').length
    const before = count()
    await rdap.lookupDomain('example.com')
    await rdap.lookupDomain('voorbeeld.nl')
    expect(count()).toBe(before + 1)
    ttlClock.advance(60_000)
    await rdap.lookupDomain('example.com')
    expect(count()).toBe(before + 2)
  })

  it('keeps using a stale bootstrap when the refresh fails', async () => {
    const ttlClock = createManualClock()
    const rdap = client({ clock: ttlClock, bootstrapTtlMs: 1000 })
    await rdap.lookupDomain('example.com')
    ttlClock.advance(5000)
    fake.behave({ mode: 'error', error: 'bootstrap_500' })
    expect(await rdap.lookupDomain('example.com')).toMatchObject({ status: 'ok', data: { registered: true } })
  })

  it('reports a failing bootstrap without a cached copy as unavailable', async () => {
    fake.behave({ mode: 'error', error: 'bootstrap_500' })
    expect(await client().lookupDomain('example.com')).toMatchObject({
      status: 'unavailable',
      reason: 'upstream_error',
    })
  })

  it.each([
    ['http_500', 'upstream_error'],
    ['http_503', 'upstream_error'],
    ['http_429', 'rate_limited'],
    ['http_400', 'request_rejected'],
    ['malformed', 'invalid_response'],
  ])('maps the RDAP error answer %s to unavailable %s', async (error, reason) => {
    const rdap = client()
    await rdap.lookupDomain('example.com') // warm the bootstrap
    fake.behave({ mode: 'error', error })
    expect(await rdap.lookupDomain('example.com')).toMatchObject({ status: 'unavailable', reason })
  })

  it('keeps the RDAP error title in the detail', async () => {
    const rdap = client()
    await rdap.lookupDomain('example.com')
    fake.behave({ mode: 'error', error: 'http_503' })
    const result = await rdap.lookupDomain('example.com')
    expect(result.status === 'unavailable' && result.detail).toContain('Service Unavailable')
  })

  it('refuses a loopback RDAP server in production mode', async () => {
    const result = await client({ allowPrivateAddresses: false }).lookupDomain('example.com')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'address_refused' })
  })

  it('rejects something that is not a domain name without a request', async () => {
    const before = fake.requests.length
    expect(await client().lookupDomain('not a domain/../x')).toMatchObject({ reason: 'request_rejected' })
    expect(fake.requests.length).toBe(before)
  })

  it('reports timeout when the RDAP server is slow or silent', async () => {
    const rdap = client({ timeoutMs: 100 })
    fake.behave({ delayMs: 1500 })
    expect(await rdap.lookupDomain('example.com')).toMatchObject({ status: 'unavailable', reason: 'timeout' })
    fake.behave({ mode: 'hang', delayMs: 0 })
    expect(await rdap.lookupDomain('example.com')).toMatchObject({ status: 'unavailable', reason: 'timeout' })
  })

  it('reports connection_refused when nothing listens', async () => {
    const refused = client({ bootstrapUrl: `${REFUSED_URL}/dns.json` })
    expect(await refused.lookupDomain('example.com')).toMatchObject({ reason: 'connection_refused' })
  })

  it('opens the circuit after N failures and recovers through a half-open trial', async () => {
    const breakerClock = createManualClock()
    const rdap = client({
      clock: breakerClock,
      breaker: { failureThreshold: 2, coolDownMs: 1000 },
      bootstrapTtlMs: 1e9,
    })
    await rdap.lookupDomain('example.com')
    fake.behave({ mode: 'error', error: 'http_503' })
    await rdap.lookupDomain('example.com')
    await rdap.lookupDomain('example.com')
    const before = fake.requests.length
    expect(await rdap.lookupDomain('example.com')).toMatchObject({ reason: 'circuit_open' })
    expect(fake.requests.length).toBe(before)
    fake.behave({ mode: 'normal' })
    breakerClock.advance(1000)
    expect(await rdap.lookupDomain('example.com')).toMatchObject({ status: 'ok' })
    expect(rdap.breaker.state()).toBe('closed')
  })
})

describe('normaliseDomain', () => {
  it('lower-cases, strips the root dot and converts IDN to punycode', () => {
    expect(normaliseDomain('Bücher.DE.')).toBe('xn--bcher-kva.de')
  })

  it('rejects paths, spaces and single labels', () => {
    expect(normaliseDomain('a/b.com')).toBeNull()
    expect(normaliseDomain('localhost')).toBeNull()
  })
})
