// Test-only: the lead-verification sources wired to the fake upstreams (KVK, KBO, VIES, DNS, sanctions).
import type { Clock } from '../../core/context.ts'
import {
  createDnsProbe,
  createDnsResolver,
  createInMemoryKboStore,
  createKboImporter,
  createKboLookup,
  createViesClient,
  kboDirectorySource,
} from '../../core/sources/index.ts'
import { COMPANY_VIES_RECORDS, type CompanyFakes, startCompanyFakes } from './company-fakes.ts'
import {
  DNS_FAKE_ZONES,
  type FakeDnsServer,
  type FakeZoneRecords,
  KBO_FULL_FIXTURE_DIR,
  kboMemorySource,
  startFakeDnsServer,
  startFakeViesServer,
} from './fakes/index.ts'

/**
 * VIES records of the lead tests: the company fakes' own plus NL812345678B01, a made-up number that
 * passes the NL check digits and is registered to another company than any lead claims.
 */
export const LEAD_VIES_RECORDS = {
  ...COMPANY_VIES_RECORDS,
  NL812345678B01: { name: 'ANDERE HANDEL B.V.', address: 'DAMRAK 00001\n1012LG AMSTERDAM' },
}

/**
 * Mail zones of the lead tests beside the fakes' own: a company domain for KVK test company
 * 68750110 (its KVK profile lists www.testbvdonald.nl), Veneco's domain, gmail.com (free mail),
 * mailinator.com (on the disposable list) and a domain without MX.
 */
export const LEAD_DNS_ZONES: Record<string, FakeZoneRecords> = {
  ...DNS_FAKE_ZONES,
  'testbvdonald.nl': { MX: [{ preference: 10, exchange: 'mail.testbvdonald.nl' }], A: ['192.0.2.20'] },
  'www.testbvdonald.nl': { A: ['192.0.2.20'] },
  'veneco.be': {
    MX: [{ preference: 10, exchange: 'veneco-be.mail.protection.outlook.com' }],
    A: ['192.0.2.30'],
  },
  'gmail.com': { MX: [{ preference: 5, exchange: 'gmail-smtp-in.l.google.com' }], A: ['192.0.2.40'] },
  'mailinator.com': { MX: [{ preference: 10, exchange: 'mail.mailinator.com' }] },
  'nomail.nl': { A: ['192.0.2.50'] },
}

/**
 * The KBO excerpt plus an update extract that deletes Intercommunaal Sanatorium Denderoord
 * (0200.245.711): a stopped (dissolved) enterprise, as an update extract marks one.
 */
const KBO_UPDATE_STOPPING_DENDEROORD = kboMemorySource({
  'meta.csv':
    '"Variable","Value"\n"SnapshotDate","06-06-2025"\n"ExtractType","update"\n"ExtractNumber","137"\n',
  'enterprise_delete.csv': '"EnterpriseNumber"\n"0200.245.711"\n',
  'denomination_delete.csv': '"EntityNumber"\n"0200.245.711"\n',
})

export interface LeadFakes extends CompanyFakes {
  /** The DNS fake with {@link LEAD_DNS_ZONES} (replaces the company fakes' DNS in `sources`). */
  leadDns: FakeDnsServer
  /** Upstream requests received so far, per source. */
  upstreamCalls(): { kvk: number; vies: number; dns: number; sanctions: number }
}

/** Every lead source as a fake on 127.0.0.1, answering after `delayMs`. */
export async function startLeadFakes(
  options: { delayMs?: number; clock?: Clock; timeoutMs?: number; sanctioned?: string[] } = {},
): Promise<LeadFakes> {
  const company = await startCompanyFakes(options)
  const leadDns = await startFakeDnsServer({
    zones: LEAD_DNS_ZONES,
    behaviour: { delayMs: options.delayMs ?? 0 },
  })
  const vies = await startFakeViesServer({
    behaviour: { delayMs: options.delayMs ?? 0 },
    records: LEAD_VIES_RECORDS,
  })
  const store = createInMemoryKboStore()
  const importer = createKboImporter({ store, clock: options.clock })
  await importer.importExtract(kboDirectorySource(KBO_FULL_FIXTURE_DIR))
  await importer.importExtract(KBO_UPDATE_STOPPING_DENDEROORD)
  const timeoutMs = options.timeoutMs ?? 5000
  company.sources.vies = createViesClient({ clock: options.clock, timeoutMs, baseUrl: vies.url })
  company.sources.kbo = createKboLookup({ store, clock: options.clock })
  company.sources.dns = createDnsProbe({
    clock: options.clock,
    timeoutMs,
    resolver: createDnsResolver({ servers: [leadDns.server], timeoutMs, tries: 1 }),
  })
  return {
    ...company,
    vies,
    leadDns,
    behaveAll(behaviour) {
      company.behaveAll(behaviour)
      leadDns.behave(behaviour)
      vies.behave(behaviour)
    },
    upstreamCalls: () => ({
      kvk: company.kvk.requests.length,
      vies: vies.requests.length,
      dns: leadDns.queries.length,
      sanctions: company.sanctions.screened.length,
    }),
    close: async () => {
      await Promise.all([company.close(), leadDns.close(), vies.close()])
    },
  }
}
