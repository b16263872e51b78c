import pLimit, { type LimitFunction } from 'p-limit'
import type { CompanySources } from '../checks/company-sources.ts'
import type { SanctionsNameScreen } from '../checks/sanctions-name-screen.ts'
import type { Clock } from '../context.ts'
import { normaliseCompanyName, type SanctionsNameScreenResult } from '../scoring/index.ts'
import type {
  DnsProfile,
  KboEnterprise,
  KvkCompany,
  KvkSearchData,
  SourceResult,
  ViesCheck,
} from '../sources/index.ts'

/** Calls of one batch to one source running at once, at most, so a batch never floods an upstream. */
export const LEAD_SOURCE_CONCURRENCY = 8

export interface LeadLookupDeps {
  sources: CompanySources
  sanctions?: SanctionsNameScreen
  clock: Clock
  /** Default {@link LEAD_SOURCE_CONCURRENCY}. */
  concurrency?: number
}

/** Upstream calls a batch made and saved: the same VAT number or domain is asked once per batch. */
export interface LeadBatchStats {
  calls: Record<string, number>
  deduplicated: number
}

/** The upstream questions a lead check asks, each answered once per batch. */
export interface LeadLookups {
  kvkLookup(number: string): Promise<SourceResult<KvkCompany>>
  kvkSearch(name: string): Promise<SourceResult<KvkSearchData>>
  kboLookup(number: string): Promise<SourceResult<KboEnterprise>>
  viesCheck(vatNumber: string): Promise<SourceResult<ViesCheck>>
  dnsProbe(domain: string): Promise<SourceResult<DnsProfile>>
  screen(name: string, country: string): Promise<SanctionsNameScreenResult>
  stats(): LeadBatchStats
}

const unavailable = (source: string, reason: string, at: string): SourceResult<never> => ({
  source,
  status: 'unavailable',
  reason,
  fetched_at: at,
  latency_ms: 0,
})

/**
 * The lookups of one batch. Every source answer is kept for the batch: the same KVK or KBO
 * number, VAT number, mail domain or name is asked once, however many leads carry it, and the
 * calls of the whole batch to each source run at most `concurrency` at a time. A source that is
 * not configured answers `unavailable` (never clean).
 */
export function createLeadLookups(deps: LeadLookupDeps): LeadLookups {
  const { sources, clock } = deps
  // One limiter per source: a slow register does not hold back the DNS or VIES calls.
  const limiters = new Map<string, LimitFunction>()
  const limitFor = (source: string) => {
    let limiter = limiters.get(source)
    if (!limiter) {
      limiter = pLimit(deps.concurrency ?? LEAD_SOURCE_CONCURRENCY)
      limiters.set(source, limiter)
    }
    return limiter
  }
  const memo = new Map<string, Promise<unknown>>()
  const calls: Record<string, number> = {}
  let deduplicated = 0
  const stamp = () => clock.now().toISOString()

  function once<T>(source: string, key: string, call: () => Promise<T>): Promise<T> {
    const id = `${source}\u0000${key}`
    const known = memo.get(id)
    if (known) {
      deduplicated++
      return known as Promise<T>
    }
    calls[source] = (calls[source] ?? 0) + 1
    const started = limitFor(source)(call)
    memo.set(id, started)
    return started
  }

  return {
    stats: () => ({ calls: { ...calls }, deduplicated }),
    kvkLookup(number) {
      const kvk = sources.kvk
      return kvk
        ? once('kvk', `n:${number}`, () => kvk.lookupCompany(number))
        : Promise.resolve(unavailable('kvk', 'not_configured', stamp()))
    },
    kvkSearch(name) {
      const kvk = sources.kvk
      return kvk
        ? once('kvk', `s:${normaliseCompanyName(name)}`, () => kvk.searchCompanies({ name, limit: 10 }))
        : Promise.resolve(unavailable('kvk', 'not_configured', stamp()))
    },
    kboLookup(number) {
      const kbo = sources.kbo
      return kbo
        ? once('kbo', number, () => kbo.lookupEnterprise(number))
        : Promise.resolve(unavailable('kbo', 'not_configured', stamp()))
    },
    viesCheck(vatNumber) {
      const vies = sources.vies
      return vies
        ? once('vies', vatNumber, () => vies.checkVat({ vatNumber }))
        : Promise.resolve(unavailable('vies', 'not_configured', stamp()))
    },
    dnsProbe(domain) {
      const dns = sources.dns
      return dns
        ? once('dns', domain, () => dns.probe(domain))
        : Promise.resolve(unavailable('dns', 'not_configured', stamp()))
    },
    screen(name, country) {
      const sanctions = deps.sanctions
      if (!sanctions) return Promise.resolve({ status: 'unavailable', reason: 'sanctions_lists_not_loaded' })
      return once('sanctions', `${country}:${normaliseCompanyName(name)}`, async () => {
        try {
          return await sanctions.screenName(name, country)
        } catch {
          return { status: 'unavailable', reason: 'internal_error' } as const
        }
      })
    },
  }
}
