import type { Clock } from '../../../core/context.ts'
import { createDnsProbe, createDnsResolver, type DnsProbe } from '../../../core/sources/dns-probe.ts'
import { fanOut } from '../../../core/sources/fan-out.ts'
import { createKboLookup, type KboLookup } from '../../../core/sources/kbo.ts'
import { createKboImporter, kboDirectorySource } from '../../../core/sources/kbo-import.ts'
import { createInMemoryKboStore } from '../../../core/sources/kbo-store.ts'
import { createKvkClient, type KvkClient } from '../../../core/sources/kvk.ts'
import { createRdapClient, type RdapClient } from '../../../core/sources/rdap.ts'
import { createTlsProbe, type TlsProbe } from '../../../core/sources/tls-probe.ts'
import { createViesClient, type ViesClient } from '../../../core/sources/vies.ts'
import type { BusyGauge, FakeBehaviour } from './fake-behaviour.ts'
import { type FakeDnsServer, startFakeDnsServer } from './fake-dns-server.ts'
import type { FakeHttpServer } from './fake-http-server.ts'
import { type FakeKvkServer, startFakeKvkServer } from './fake-kvk-server.ts'
import { type FakeRdapServer, startFakeRdapServer } from './fake-rdap-server.ts'
import { type FakeTlsServer, startFakeTlsServer } from './fake-tls-server.ts'
import { startFakeViesServer } from './fake-vies-server.ts'
import { KBO_FULL_FIXTURE_DIR } from './kbo-extract.ts'

export interface AllFakes {
  kvk: FakeKvkServer
  vies: FakeHttpServer
  rdap: FakeRdapServer
  dns: FakeDnsServer
  tls: FakeTlsServer
  /** Changes the behaviour of every fake at once (e.g. all slow, all hanging). */
  behaveAll(behaviour: Partial<FakeBehaviour>): void
  close(): Promise<void>
}

export interface StartAllFakesOptions {
  /** Delay before every answer of every fake (DNS query, HTTP response, TLS handshake). */
  delayMs?: number
  gauge?: BusyGauge
  hold?: () => Promise<void>
}

/**
 * Starts every upstream fake at once on 127.0.0.1 (KVK, VIES, RDAP + bootstrap, DNS, TLS),
 * each answering after `delayMs`. For benchmarks of an entity check's fan-out: with 200 ms per
 * answer, a parallel fan-out costs about one delay, a sequential one the sum. The RDAP client
 * fetches its bootstrap once first (a second delay): warm it with one lookup before measuring.
 */
export async function startAllFakes(options: StartAllFakesOptions = {}): Promise<AllFakes> {
  const common = { behaviour: { delayMs: options.delayMs ?? 0 }, gauge: options.gauge, hold: options.hold }
  const [kvk, vies, rdap, dns, tls] = await Promise.all([
    startFakeKvkServer(common),
    startFakeViesServer(common),
    startFakeRdapServer(common),
    startFakeDnsServer(common),
    startFakeTlsServer(common),
  ])
  const all = [kvk, vies, rdap, dns, tls]
  return {
    kvk,
    vies,
    rdap,
    dns,
    tls,
    behaveAll(behaviour) {
      for (const fake of all) fake.behave(behaviour)
    },
    close: async () => {
      await Promise.all(all.map((fake) => fake.close()))
    },
  }
}

export interface FakeBackedSources {
  kvk: KvkClient
  vies: ViesClient
  rdap: RdapClient
  dns: DnsProbe
  tls: TlsProbe
  kbo: KboLookup
}

/**
 * Real adapters pointed at the fakes (loopback allowed, the fakes' CA trusted, the TLS host
 * name resolved to 127.0.0.1), plus a KBO lookup over the hand-made excerpt.
 */
export async function createSourcesForFakes(
  fakes: AllFakes,
  options: { clock?: Clock; timeoutMs?: number } = {},
): Promise<FakeBackedSources> {
  const common = { clock: options.clock, timeoutMs: options.timeoutMs ?? 5000 }
  const store = createInMemoryKboStore()
  await createKboImporter({ store, clock: options.clock }).importExtract(
    kboDirectorySource(KBO_FULL_FIXTURE_DIR),
  )
  return {
    kvk: createKvkClient({ ...common, baseUrl: fakes.kvk.url, apiKey: fakes.kvk.apiKey }),
    vies: createViesClient({ ...common, baseUrl: fakes.vies.url }),
    rdap: createRdapClient({ ...common, bootstrapUrl: fakes.rdap.bootstrapUrl, allowPrivateAddresses: true }),
    dns: createDnsProbe({
      ...common,
      resolver: createDnsResolver({ servers: [fakes.dns.server], timeoutMs: common.timeoutMs, tries: 1 }),
    }),
    tls: createTlsProbe({
      ...common,
      port: fakes.tls.port,
      ca: fakes.tls.ca,
      allowPrivateAddresses: true,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    }),
    kbo: createKboLookup({ store, clock: options.clock }),
  }
}

/**
 * The source calls of one entity check against the fakes, fanned out: what a benchmark times.
 * The names and numbers are ones the fakes know.
 */
export function entityCheckFanOut(sources: FakeBackedSources) {
  return fanOut({
    kvk: () => sources.kvk.lookupCompany('68750110'),
    vies: () => sources.vies.checkVat({ vatNumber: 'NL859048153B01' }),
    rdap: () => sources.rdap.lookupDomain('example.com'),
    dns: () => sources.dns.probe('example.com'),
    tls: () => sources.tls.probe('secure.example.test'),
    kbo: () => sources.kbo.lookupEnterprise('0200.065.765'),
  })
}
