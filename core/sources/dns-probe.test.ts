import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type FakeDnsServer, startFakeDnsServer } from '../../test/support/fakes/fake-dns-server.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createDnsProbe, createDnsResolver } from './dns-probe.ts'

let fake: FakeDnsServer
const clock = createManualClock()

beforeAll(async () => {
  fake = await startFakeDnsServer()
})
afterAll(async () => {
  await fake.close()
})
beforeEach(() => {
  fake.behave({ mode: 'normal', delayMs: 0, error: undefined })
})

const probe = (overrides: Partial<Parameters<typeof createDnsProbe>[0]> = {}) =>
  createDnsProbe({
    resolver: createDnsResolver({ servers: [fake.server], timeoutMs: 1000, tries: 1 }),
    timeoutMs: 2000,
    clock,
    breaker: { failureThreshold: 100 },
    ...overrides,
  })

describe('DNS probe over a real UDP resolver', () => {
  it('reads MX by priority, a split SPF record and the DMARC policy', async () => {
    const result = await probe().probe('Example.com')
    expect(result).toMatchObject({
      source: 'dns',
      status: 'ok',
      data: {
        domain: 'example.com',
        domain_exists: true,
        has_mx: true,
        mx: [
          { exchange: 'mx1.example.com', priority: 10 },
          { exchange: 'mx2.example.com', priority: 20 },
        ],
        has_spf: true,
        spf: 'v=spf1 include:_spf.example.com -all',
        has_dmarc: true,
        dmarc_policy: 'reject',
        dmarc_domain: 'example.com',
      },
    })
    expect(fake.queries.map((q) => `${q.type} ${q.name}`)).toEqual(
      expect.arrayContaining(['MX example.com', 'TXT example.com', 'TXT _dmarc.example.com']),
    )
  })

  it('reports a domain with mail but without SPF and DMARC', async () => {
    const result = await probe().probe('voorbeeld.nl')
    expect(result).toMatchObject({
      status: 'ok',
      data: {
        domain_exists: true,
        has_mx: true,
        has_spf: false,
        spf: null,
        has_dmarc: false,
        dmarc_policy: null,
      },
    })
  })

  it('falls back to the organisational domain for DMARC', async () => {
    const result = await probe().probe('shop.example.com')
    expect(result).toMatchObject({
      status: 'ok',
      data: { has_mx: false, has_dmarc: true, dmarc_domain: 'example.com' },
    })
  })

  it('answers NXDOMAIN as a domain that does not exist, an ok answer, once the parent zone resolves', async () => {
    const asked = fake.queries.length
    const result = await probe().probe('no-such-domain.example')
    expect(result).toMatchObject({
      status: 'ok',
      data: { domain_exists: false, has_mx: false, has_spf: false },
    })
    expect(fake.queries.slice(asked)).toContainEqual({ name: 'example', type: 'SOA' })
  })

  it('never reports "does not exist" from a resolver that answers NXDOMAIN for every name', async () => {
    fake.behave({ mode: 'error', error: 'nxdomain' })
    const result = await probe().probe('gmail.com')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'resolver_unreliable' })
    expect(result.status === 'unavailable' && result.detail).toContain('parent zone com')
  })

  it('never reports "no mail server" from a resolver that answers NODATA (no error, no records) for every name', async () => {
    fake.behave({ mode: 'error', error: 'nodata' })
    for (const domain of ['gmail.com', 'example.com']) {
      const result = await probe().probe(domain)
      expect(result, domain).toMatchObject({ status: 'unavailable', reason: 'resolver_unreliable' })
      expect(result.status === 'unavailable' && result.detail, domain).toContain(
        'answers no records for the SOA of the parent zone com',
      )
    }
  })

  it('believes NODATA once the parent zone has an SOA: a name with a web server but no mail', async () => {
    const asked = fake.queries.length
    const result = await probe().probe('shop.example.com')
    expect(result).toMatchObject({ status: 'ok', data: { domain_exists: true, has_mx: false } })
    expect(fake.queries.slice(asked)).toContainEqual({ name: 'com', type: 'SOA' })
  })

  it('asks no SOA when every answer carries records', async () => {
    const asked = fake.queries.length
    expect(await probe().probe('example.com')).toMatchObject({ status: 'ok', data: { has_mx: true } })
    expect(fake.queries.slice(asked).filter((query) => query.type === 'SOA')).toEqual([])
  })

  it('asks the parent zone once in a while, not for every absent name', async () => {
    const dns = probe()
    await dns.probe('absent-one.example')
    const asked = fake.queries.length
    expect(await dns.probe('absent-two.example')).toMatchObject({ data: { domain_exists: false } })
    expect(fake.queries.slice(asked).filter((query) => query.type === 'SOA')).toEqual([])
  })

  it('takes a parent zone without an SOA of its own (co.uk inside uk) as found when the zone above has one', async () => {
    const zones = await startFakeDnsServer({ zones: { uk: { SOA: true }, 'co.uk': { A: ['192.0.2.1'] } } })
    try {
      const dns = createDnsProbe({
        resolver: createDnsResolver({ servers: [zones.server], timeoutMs: 1000, tries: 1 }),
        timeoutMs: 2000,
        clock,
      })
      expect(await dns.probe('absent.co.uk')).toMatchObject({ status: 'ok', data: { domain_exists: false } })
      expect(zones.queries).toContainEqual({ name: 'co.uk', type: 'SOA' })
      expect(zones.queries).toContainEqual({ name: 'uk', type: 'SOA' })
    } finally {
      await zones.close()
    }
  })

  it('does not take a suffix without an SOA as proof when no zone above it has one either', async () => {
    const zones = await startFakeDnsServer({ zones: { 'co.uk': { A: ['192.0.2.1'] } } })
    try {
      const dns = createDnsProbe({
        resolver: createDnsResolver({ servers: [zones.server], timeoutMs: 1000, tries: 1 }),
        timeoutMs: 2000,
        clock,
      })
      const result = await dns.probe('absent.co.uk')
      expect(result).toMatchObject({ status: 'unavailable', reason: 'resolver_unreliable' })
      expect(result.status === 'unavailable' && result.detail).toContain('parent zone co.uk (and uk)')
    } finally {
      await zones.close()
    }
  })

  it('recognises a null MX as no mail', async () => {
    const result = await probe().probe('nullmx.example')
    expect(result).toMatchObject({ status: 'ok', data: { has_mx: false, null_mx: true } })
  })

  it('reports SERVFAIL as unavailable, never as "no records"', async () => {
    fake.behave({ mode: 'error', error: 'servfail' })
    const result = await probe().probe('example.com')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'upstream_error', detail: 'ESERVFAIL' })
  })

  it('reports REFUSED as unavailable', async () => {
    fake.behave({ mode: 'error', error: 'refused' })
    expect(await probe().probe('example.com')).toMatchObject({
      status: 'unavailable',
      reason: 'upstream_error',
    })
  })

  it('reports timeout when the nameserver stays silent', async () => {
    fake.behave({ mode: 'hang' })
    expect(await probe().probe('example.com')).toMatchObject({ status: 'unavailable', reason: 'timeout' })
  })

  it('reports timeout when answers come after the probe timeout', async () => {
    fake.behave({ delayMs: 1500 })
    const slow = probe({
      resolver: createDnsResolver({ servers: [fake.server], timeoutMs: 5000, tries: 1 }),
      timeoutMs: 100,
    })
    expect(await slow.probe('example.com')).toMatchObject({ status: 'unavailable', reason: 'timeout' })
  })

  it('reports a closed nameserver port as unavailable', async () => {
    // Port 9 (discard) is below the ephemeral range: no socket of a parallel test (a fake server
    // or a resolver's own source port) can take it, as it could take a port a fake just freed.
    // c-ares reads the ICMP port-unreachable on loopback as ECONNREFUSED.
    const closed = probe({
      resolver: createDnsResolver({ servers: ['127.0.0.1:9'], timeoutMs: 1000, tries: 1 }),
    })
    expect(await closed.probe('example.com')).toMatchObject({
      status: 'unavailable',
      reason: 'connection_refused',
    })
    expect(await probe().probe('example.com')).toMatchObject({ status: 'ok' })
  })

  it('opens the circuit after N failures and recovers half-open', async () => {
    const breakerClock = createManualClock()
    const dns = probe({ clock: breakerClock, breaker: { failureThreshold: 2, coolDownMs: 1000 } })
    fake.behave({ mode: 'error', error: 'servfail' })
    await dns.probe('example.com')
    await dns.probe('example.com')
    const before = fake.queries.length
    expect(await dns.probe('example.com')).toMatchObject({ reason: 'circuit_open' })
    expect(fake.queries.length).toBe(before)
    fake.behave({ mode: 'normal' })
    breakerClock.advance(1000)
    expect(await dns.probe('example.com')).toMatchObject({ status: 'ok' })
    expect(dns.breaker.state()).toBe('closed')
  })

  it('works with any resolver port (an in-memory stand-in)', async () => {
    const dns = probe({
      resolver: {
        resolveMx: async () => [{ exchange: 'in.memory', priority: 1 }],
        resolveTxt: async (name) => (name.startsWith('_dmarc.') ? [['v=DMARC1; p=none']] : [['v=spf1 -all']]),
        resolveSoa: async () => ({}),
      },
    })
    expect(await dns.probe('memory.example')).toMatchObject({
      status: 'ok',
      data: { has_mx: true, has_spf: true, dmarc_policy: 'none' },
    })
  })
})
