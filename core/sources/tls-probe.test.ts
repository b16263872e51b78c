import { type AddressInfo, createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeTlsServer, startFakeTlsServer } from '../../test/support/fakes/fake-tls-server.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { REFUSED_PORT } from '../../test/support/fakes/refused-address.ts'
import { createTlsProbe, type TlsProbeOptions } from './tls-probe.ts'

const HOST = 'secure.example.test'
const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }]
const servers: Record<string, FakeTlsServer> = {}
const clock = createManualClock(new Date())

beforeAll(async () => {
  for (const kind of ['valid', 'expired', 'self_signed', 'wrong_host'] as const) {
    servers[kind] = await startFakeTlsServer({ certificate: kind, hostname: HOST })
  }
})
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()))
})

const probeOf = (server: FakeTlsServer, overrides: Partial<TlsProbeOptions> = {}) =>
  createTlsProbe({
    port: server.port,
    ca: server.ca,
    timeoutMs: 3000,
    clock,
    allowPrivateAddresses: true,
    lookup: toLoopback,
    breaker: { failureThreshold: 100 },
    ...overrides,
  })

describe('TLS certificate probe against local TLS servers', () => {
  it('reports a certificate from a trusted CA for the right host as valid', async () => {
    const server = servers.valid!
    const result = await probeOf(server).probe(HOST)
    expect(result).toMatchObject({
      source: 'tls',
      status: 'ok',
      data: {
        host: HOST,
        address: '127.0.0.1',
        ssl_valid: true,
        invalid_reason: null,
        issuer: 'Fake Test Trust Services',
        subject: HOST,
      },
    })
    if (result.status !== 'ok') return
    expect(result.data.days_remaining).toBeGreaterThanOrEqual(88)
    expect(result.data.days_remaining).toBeLessThanOrEqual(90)
    expect(Date.parse(result.data.valid_to!)).toBeGreaterThan(Date.parse(result.data.valid_from!))
  })

  it('reports the same certificate as invalid when its CA is not trusted', async () => {
    const result = await probeOf(servers.valid!, { ca: undefined }).probe(HOST)
    expect(result).toMatchObject({ status: 'ok', data: { ssl_valid: false } })
    expect(result.status === 'ok' && result.data.invalid_reason).toMatch(/CERT|ISSUER|SIGNATURE/)
  })

  it('reports an expired certificate as invalid with negative days remaining', async () => {
    const result = await probeOf(servers.expired!).probe(HOST)
    expect(result).toMatchObject({
      status: 'ok',
      data: { ssl_valid: false, invalid_reason: 'CERT_HAS_EXPIRED' },
    })
    expect(result.status === 'ok' && result.data.days_remaining).toBeLessThan(0)
  })

  it('reports a self-signed certificate as invalid', async () => {
    const result = await probeOf(servers.self_signed!).probe(HOST)
    expect(result).toMatchObject({
      status: 'ok',
      data: { ssl_valid: false, invalid_reason: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
    })
  })

  it('reports a certificate for another name as a hostname mismatch', async () => {
    const result = await probeOf(servers.wrong_host!).probe(HOST)
    expect(result).toMatchObject({
      status: 'ok',
      data: { ssl_valid: false, invalid_reason: 'HOSTNAME_MISMATCH' },
    })
  })

  it('judges expiry by the injected clock', async () => {
    const future = createManualClock(new Date(Date.now() + 200 * 86_400_000))
    const result = await probeOf(servers.valid!, { clock: future }).probe(HOST)
    expect(result).toMatchObject({
      status: 'ok',
      data: { ssl_valid: false, invalid_reason: 'CERT_HAS_EXPIRED' },
    })
  })

  it('refuses a host resolving to loopback in production mode without connecting', async () => {
    const server = servers.valid!
    const before = server.connections
    const result = await probeOf(server, { allowPrivateAddresses: false }).probe(HOST)
    expect(result).toMatchObject({ status: 'unavailable', reason: 'address_refused' })
    expect(server.connections).toBe(before)
  })

  it('refuses the cloud metadata address given as a literal', async () => {
    const result = await probeOf(servers.valid!, { allowPrivateAddresses: false }).probe('169.254.169.254')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'address_refused' })
  })

  it('reports a name that does not resolve as unresolvable without touching the breaker', async () => {
    const probe = probeOf(servers.valid!, {
      lookup: async () => {
        throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' })
      },
      breaker: { failureThreshold: 1 },
    })
    expect(await probe.probe('nowhere.example.test')).toMatchObject({
      status: 'unavailable',
      reason: 'unresolvable',
    })
    expect(probe.breaker.state()).toBe('closed')
  })

  it('reports timeout when the server accepts but never starts TLS, or starts too late', async () => {
    const server = await startFakeTlsServer({ hostname: HOST, behaviour: { mode: 'hang' } })
    try {
      expect(await probeOf(server, { timeoutMs: 150 }).probe(HOST)).toMatchObject({
        status: 'unavailable',
        reason: 'timeout',
      })
      server.behave({ mode: 'normal', delayMs: 1500 })
      expect(await probeOf(server, { timeoutMs: 150 }).probe(HOST)).toMatchObject({
        status: 'unavailable',
        reason: 'timeout',
      })
    } finally {
      await server.close()
    }
  })

  it('reports a reset connection as network_error and a closed port as connection_refused', async () => {
    const server = await startFakeTlsServer({ hostname: HOST, behaviour: { mode: 'reset' } })
    try {
      expect(await probeOf(server).probe(HOST)).toMatchObject({
        status: 'unavailable',
        reason: 'network_error',
      })
      expect(await probeOf(server, { port: REFUSED_PORT }).probe(HOST)).toMatchObject({
        status: 'unavailable',
        reason: 'connection_refused',
      })
    } finally {
      await server.close()
    }
  })

  it('reports a server that does not speak TLS as an ok answer with the handshake error', async () => {
    const plain = createServer((socket) => {
      socket.on('error', () => {})
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')
    })
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    try {
      const port = (plain.address() as AddressInfo).port
      const result = await probeOf(servers.valid!, { port }).probe(HOST)
      expect(result).toMatchObject({ status: 'ok', data: { ssl_valid: false, issuer: null } })
      expect(result.status === 'ok' && result.data.invalid_reason).toMatch(/^ERR_SSL_/)
    } finally {
      plain.close()
    }
  })

  it('opens the circuit after N failures and recovers half-open', async () => {
    const server = await startFakeTlsServer({ hostname: HOST })
    const breakerClock = createManualClock(new Date())
    const probe = probeOf(server, { clock: breakerClock, breaker: { failureThreshold: 2, coolDownMs: 1000 } })
    try {
      await server.refuse()
      await probe.probe(HOST)
      await probe.probe(HOST)
      await server.resume()
      const before = server.connections
      expect(await probe.probe(HOST)).toMatchObject({ status: 'unavailable', reason: 'circuit_open' })
      expect(server.connections).toBe(before)
      breakerClock.advance(1000)
      expect(await probe.probe(HOST)).toMatchObject({ status: 'ok', data: { ssl_valid: true } })
      expect(probe.breaker.state()).toBe('closed')
    } finally {
      await server.close()
    }
  })
})
