// Test-only: the company-check sources wired to the fake upstreams, and a fake sanctions screen.
import type { CompanySources } from '../../core/checks/index.ts'
import type { SanctionsNameScreen } from '../../core/checks/sanctions-name-screen.ts'
import type { Clock } from '../../core/context.ts'
import type { ListNotCheckedReason } from '../../core/sanctions/coverage.ts'
import { LIST_KEYS, type ListKey } from '../../core/sanctions/types.ts'
import type { SanctionsNameMatch, SanctionsNameScreenResult } from '../../core/scoring/index.ts'
import { normaliseCompanyName } from '../../core/scoring/index.ts'
import {
  createDnsProbe,
  createDnsResolver,
  createInMemoryKboStore,
  createKboImporter,
  createKboLookup,
  createKvkClient,
  createRdapClient,
  createTlsProbe,
  createViesClient,
  kboDirectorySource,
} from '../../core/sources/index.ts'
import {
  type BusyGauge,
  type FakeBehaviour,
  type FakeDnsServer,
  type FakeHttpServer,
  type FakeKvkServer,
  type FakeRdapServer,
  type FakeTlsServer,
  KBO_FULL_FIXTURE_DIR,
  sleep,
  startFakeDnsServer,
  startFakeKvkServer,
  startFakeRdapServer,
  startFakeTlsServer,
  startFakeViesServer,
  VIES_FAKE_RECORDS,
} from './fakes/index.ts'
import { fakeCoverage } from './sanctions/coverage-fixtures.ts'

/**
 * VIES records for the company tests: the fakes' own, plus NL857587973B01, the VAT number made
 * from the RSIN of KVK test company 68750110 (Test BV Donald), which passes the NL check digits.
 */
export const COMPANY_VIES_RECORDS = {
  ...VIES_FAKE_RECORDS,
  NL857587973B01: { name: 'TEST BV DONALD', address: 'HIZZAARDERLAAN 00003A\n8823SJ LOLLUM' },
}

export interface CompanyFakes {
  kvk: FakeKvkServer
  vies: FakeHttpServer
  rdap: FakeRdapServer
  dns: FakeDnsServer
  /** Presents a certificate for `example.com` issued by the fakes' test CA. */
  tls: FakeTlsServer
  sanctions: FakeSanctionsScreen
  sources: CompanySources
  behaveAll(behaviour: Partial<FakeBehaviour>): void
  close(): Promise<void>
}

/**
 * Every upstream of a company check as a fake on 127.0.0.1 (KVK, VIES, RDAP + bootstrap, DNS,
 * TLS), KBO over the hand-made open-data excerpt, and a fake sanctions screen, each answering
 * after `delayMs`; `sources` are the real adapters pointed at them.
 */
export async function startCompanyFakes(
  options: {
    delayMs?: number
    clock?: Clock
    timeoutMs?: number
    gauge?: BusyGauge
    /** Awaited by every fake before it answers (e.g. until N fakes are busy at once). */
    hold?: () => Promise<void>
    sanctioned?: string[]
  } = {},
): Promise<CompanyFakes> {
  const common = { behaviour: { delayMs: options.delayMs ?? 0 }, gauge: options.gauge, hold: options.hold }
  const [kvk, vies, rdap, dns, tls] = await Promise.all([
    startFakeKvkServer(common),
    startFakeViesServer({ ...common, records: COMPANY_VIES_RECORDS }),
    startFakeRdapServer(common),
    startFakeDnsServer(common),
    startFakeTlsServer({ ...common, hostname: 'example.com' }),
  ])
  const sanctions = createFakeSanctionsScreen({ names: options.sanctioned, delayMs: options.delayMs })
  const timing = { clock: options.clock, timeoutMs: options.timeoutMs ?? 5000 }
  const store = createInMemoryKboStore()
  await createKboImporter({ store, clock: options.clock }).importExtract(
    kboDirectorySource(KBO_FULL_FIXTURE_DIR),
  )
  const sources: CompanySources = {
    kvk: createKvkClient({ ...timing, baseUrl: kvk.url, apiKey: kvk.apiKey }),
    vies: createViesClient({ ...timing, baseUrl: vies.url }),
    rdap: createRdapClient({ ...timing, bootstrapUrl: rdap.bootstrapUrl, allowPrivateAddresses: true }),
    dns: createDnsProbe({
      ...timing,
      resolver: createDnsResolver({ servers: [dns.server], timeoutMs: timing.timeoutMs, tries: 1 }),
    }),
    tls: createTlsProbe({
      ...timing,
      port: tls.port,
      ca: tls.ca,
      allowPrivateAddresses: true,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    }),
    kbo: createKboLookup({ store, clock: options.clock }),
  }
  const all = [kvk, vies, rdap, dns, tls]
  return {
    kvk,
    vies,
    rdap,
    dns,
    tls,
    sanctions,
    sources,
    behaveAll(behaviour) {
      for (const fake of all) fake.behave(behaviour)
      if (behaviour.delayMs !== undefined) sanctions.delayMs = behaviour.delayMs
    },
    close: async () => {
      await Promise.all(all.map((fake) => fake.close()))
    },
  }
}

export interface FakeSanctionsScreen extends SanctionsNameScreen {
  /** Names screened so far. */
  readonly screened: string[]
  /** When set, every screen answers unavailable with this reason. */
  unavailableReason?: string
  delayMs: number
  /** The lists the fake holds (default all three); the others are missing for `missingReason`. */
  loaded: ListKey[]
  /** Why a list not in `loaded` is missing (default load_failed: an upstream failure). */
  missingReason: ListNotCheckedReason
}

/**
 * A small stand-in for the sanctions engine: a name matches when its normalised form equals a
 * listed one (the engine's exact rule, without word order or aliases).
 */
export function createFakeSanctionsScreen(
  options: { names?: string[]; delayMs?: number } = {},
): FakeSanctionsScreen {
  const listed = new Map((options.names ?? []).map((name) => [normaliseCompanyName(name), name]))
  const screen: FakeSanctionsScreen = {
    screened: [],
    delayMs: options.delayMs ?? 0,
    loaded: [...LIST_KEYS],
    missingReason: 'load_failed',
    coverage: (target) =>
      fakeCoverage(target === 'names' ? LIST_KEYS : ['ofac_sdn'], screen.loaded, {
        missing: screen.missingReason,
      }),
    async screenName(name): Promise<SanctionsNameScreenResult> {
      screen.screened.push(name)
      if (screen.delayMs > 0) await sleep(screen.delayMs)
      if (screen.unavailableReason) return { status: 'unavailable', reason: screen.unavailableReason }
      const hit = listed.get(normaliseCompanyName(name))
      const matches: SanctionsNameMatch[] = hit
        ? [
            {
              list: 'OFAC SDN',
              list_key: 'ofac_sdn',
              entry_id: 'fake-1',
              matched_name: hit,
              match_type: 'name_exact',
              match_score: 1,
            },
          ]
        : []
      const coverage = screen.coverage('names')
      return {
        status: 'ok',
        possible_match: matches.length > 0,
        matches,
        list_dates: Object.fromEntries(coverage.lists_checked.map((list) => [list.list, list.as_of])),
        coverage,
      }
    },
  }
  return screen
}
