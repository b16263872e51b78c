import { createSocket, type RemoteInfo, type Socket } from 'node:dgram'
import dnsPacket from 'dns-packet'
import { type FakeBehaviour, type FakeCommonOptions, NORMAL, sleep } from './fake-behaviour.ts'

export interface FakeZoneRecords {
  MX?: { preference: number; exchange: string }[]
  /** Each TXT record is one string or its character-strings (long SPF records are split). */
  TXT?: (string | string[])[]
  A?: string[]
  /** The name is a zone apex: it answers SOA (the parent zones a probe checks its resolver on). */
  SOA?: true
}

/** The top-level zones the fake serves an SOA for, so NXDOMAIN below them can be believed. */
const TOP_ZONES = ['com', 'net', 'org', 'nl', 'be', 'eu', 'io', 'example', 'test', 'invalid']

/** Hand-made zone data: a domain with MX, SPF and DMARC, and one with mail but no policies. */
export const DNS_FAKE_ZONES: Record<string, FakeZoneRecords> = {
  'example.com': {
    MX: [
      { preference: 10, exchange: 'mx1.example.com' },
      { preference: 20, exchange: 'mx2.example.com' },
    ],
    TXT: [['v=spf1 include:_spf.example.com ', '-all'], 'google-site-verification=abc123'],
    A: ['93.184.216.34'],
  },
  '_dmarc.example.com': { TXT: ['v=DMARC1; p=reject; rua=mailto:dmarc@example.com'] },
  'voorbeeld.nl': { MX: [{ preference: 5, exchange: 'mail.voorbeeld.nl' }], A: ['192.0.2.10'] },
  'shop.example.com': { A: ['93.184.216.35'] },
  'nullmx.example': { MX: [{ preference: 0, exchange: '.' }] },
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const

export interface FakeDnsServer {
  readonly name: 'dns'
  readonly host: '127.0.0.1'
  readonly port: number
  /** `127.0.0.1:<port>`, the form `Resolver#setServers` takes. */
  readonly server: string
  readonly queries: { name: string; type: string }[]
  /**
   * `error` mode answers: `servfail` (default), `refused`, `nxdomain` or `nodata` (NOERROR with
   * no records) for every name, zones included: a broken resolver; `hang`/`reset`: no answer at all.
   */
  behave(behaviour: Partial<FakeBehaviour>): void
  /** Closes the UDP port: queries meet ICMP port unreachable (ECONNREFUSED) until `resume()`. */
  refuse(): Promise<void>
  resume(): Promise<void>
  close(): Promise<void>
}

export interface FakeDnsOptions extends FakeCommonOptions {
  zones?: Record<string, FakeZoneRecords>
}

/**
 * A real UDP DNS server on 127.0.0.1 (dns-packet) answering MX, TXT and A from `zones`:
 * NXDOMAIN for unknown names, an empty NOERROR answer for a known name without records of the
 * asked type, SERVFAIL/REFUSED in error mode, silence in hang mode.
 */
export async function startFakeDnsServer(options: FakeDnsOptions = {}): Promise<FakeDnsServer> {
  const zones: Record<string, FakeZoneRecords> = {
    ...Object.fromEntries(TOP_ZONES.map((zone) => [zone, { SOA: true as const }])),
    ...(options.zones ?? DNS_FAKE_ZONES),
  }
  let behaviour: FakeBehaviour = { ...NORMAL, ...options.behaviour }
  const queries: { name: string; type: string }[] = []
  let socket: Socket = createSocket('udp4')
  let bound = false

  const answer = async (message: Buffer, remote: RemoteInfo) => {
    let query: dnsPacket.Packet
    try {
      query = dnsPacket.decode(message)
    } catch {
      return
    }
    const question = query.questions?.[0]
    if (!question) return
    queries.push({ name: question.name, type: question.type })
    const current = behaviour
    options.gauge?.enter('dns')
    try {
      if (current.mode === 'hang' || current.mode === 'reset') return
      await sleep(current.delayMs)
      await options.hold?.()
      const name = question.name.toLowerCase().replace(/\.$/, '')
      const zone = zones[name]
      let rcode: number = RCODE.NOERROR
      const answers: dnsPacket.Answer[] = []
      if (current.mode === 'error') {
        // nodata: NOERROR and an empty answer section, whatever the name and type.
        if (current.error !== 'nodata')
          rcode =
            current.error === 'refused'
              ? RCODE.REFUSED
              : current.error === 'nxdomain'
                ? RCODE.NXDOMAIN
                : RCODE.SERVFAIL
      } else if (!zone) rcode = RCODE.NXDOMAIN
      else if (question.type === 'MX')
        for (const mx of zone.MX ?? []) answers.push({ type: 'MX', name: question.name, ttl: 300, data: mx })
      else if (question.type === 'TXT')
        for (const txt of zone.TXT ?? [])
          answers.push({ type: 'TXT', name: question.name, ttl: 300, data: Array.isArray(txt) ? txt : [txt] })
      else if (question.type === 'A')
        for (const a of zone.A ?? []) answers.push({ type: 'A', name: question.name, ttl: 300, data: a })
      else if (question.type === 'SOA' && zone.SOA)
        answers.push({
          type: 'SOA',
          name: question.name,
          ttl: 300,
          data: {
            mname: `ns.${name}`,
            rname: `hostmaster.${name}`,
            serial: 2026112501,
            refresh: 1800,
            retry: 900,
            expire: 604800,
            minimum: 86400,
          },
        })
      const response = dnsPacket.encode({
        type: 'response',
        id: query.id,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode,
        questions: query.questions,
        answers,
      })
      // Closed or refusing meanwhile (a query held or delayed past the end of its test): a server
      // that is gone answers nothing.
      if (bound) socket.send(response, remote.port, remote.address)
    } finally {
      options.gauge?.leave('dns')
    }
  }

  const bind = (port: number) => {
    const next = createSocket('udp4')
    next.on('message', (message, remote) => {
      void answer(message, remote)
    })
    return new Promise<Socket>((resolve, reject) => {
      next.once('error', reject)
      next.bind(port, '127.0.0.1', () => {
        next.off('error', reject)
        resolve(next)
      })
    })
  }
  const unbind = () => new Promise<void>((resolve) => socket.close(() => resolve()))
  socket.close()
  socket = await bind(0)
  bound = true
  const port = socket.address().port
  return {
    name: 'dns',
    host: '127.0.0.1',
    port,
    server: `127.0.0.1:${port}`,
    queries,
    behave(next) {
      behaviour = { ...behaviour, ...next }
    },
    async refuse() {
      if (bound) await unbind()
      bound = false
    },
    async resume() {
      if (!bound) socket = await bind(port)
      bound = true
    },
    async close() {
      if (bound) await unbind()
      bound = false
    },
  }
}
