import { Resolver } from 'node:dns/promises'
import { getDomain, getPublicSuffix } from 'tldts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { normaliseDomain } from './rdap.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

/**
 * The DNS questions the domain checks ask, as a port so tests and other resolvers (DoH, a
 * cache) can stand in. Implementations throw errors with node:dns codes (`ENOTFOUND` for
 * NXDOMAIN, `ENODATA` for no records, `ESERVFAIL`, `EREFUSED`, `ETIMEOUT`, `ECONNREFUSED`).
 */
export interface DnsResolverPort {
  resolveMx(name: string, signal?: AbortSignal): Promise<{ exchange: string; priority: number }[]>
  /** Each record is its character-strings; join them to read the record. */
  resolveTxt(name: string, signal?: AbortSignal): Promise<string[][]>
  /**
   * The SOA of a zone. Asked of the parent zone (the public suffix, e.g. `com`) before an
   * NXDOMAIN or an empty answer is believed: a resolver that has no SOA for `com` either is
   * broken, not informative.
   */
  resolveSoa(name: string, signal?: AbortSignal): Promise<unknown>
}

export interface DnsResolverOptions {
  /** Nameservers as `ip` or `ip:port` (`[v6]:port`). Default: the system's. */
  servers?: string[]
  /** Per-try timeout (c-ares). Default 2000 ms. */
  timeoutMs?: number
  /** Tries per nameserver. Default 2. */
  tries?: number
}

/**
 * Real resolver on node:dns/promises `Resolver`. Each question gets its own Resolver so that
 * cancelling one (timeout) never cancels another check's questions.
 */
export function createDnsResolver(options: DnsResolverOptions = {}): DnsResolverPort {
  const make = (signal?: AbortSignal) => {
    const resolver = new Resolver({ timeout: options.timeoutMs ?? 2000, tries: options.tries ?? 2 })
    if (options.servers?.length) resolver.setServers(options.servers)
    signal?.addEventListener('abort', () => resolver.cancel(), { once: true })
    return resolver
  }
  return {
    resolveMx: (name, signal) => make(signal).resolveMx(name),
    resolveTxt: (name, signal) => make(signal).resolveTxt(name),
    resolveSoa: (name, signal) => make(signal).resolveSoa(name),
  }
}

export interface DnsProfile {
  domain: string
  /** false when the name does not exist at all (NXDOMAIN). */
  domain_exists: boolean
  has_mx: boolean
  mx: { exchange: string; priority: number }[]
  /** RFC 7505 "null MX": the domain says it accepts no mail. */
  null_mx: boolean
  has_spf: boolean
  spf: string | null
  has_dmarc: boolean
  dmarc: string | null
  dmarc_policy: 'none' | 'quarantine' | 'reject' | null
  /** Where the DMARC record was found (the domain, or its organisational domain). */
  dmarc_domain: string | null
}

export interface DnsProbeOptions extends Omit<SourceClientOptions, 'fetch'> {
  resolver: DnsResolverPort
  /** How long a parent zone found by the resolver is trusted before it is asked again. Default 10 minutes. */
  zoneConfirmedForMs?: number
}

export interface DnsProbe {
  readonly source: 'dns'
  readonly breaker: CircuitBreaker
  /** MX, SPF (TXT `v=spf1` at the domain) and DMARC (TXT `v=DMARC1` at `_dmarc.`). */
  probe(domain: string): Promise<SourceResult<DnsProfile>>
}

const ABSENT = new Set(['ENOTFOUND', 'ENODATA'])

/**
 * Mail-related DNS of a domain (DESIGN "Upstream sources": DNS MX, SPF, DMARC with an
 * injectable resolver). NXDOMAIN and "no records" are answers; SERVFAIL, REFUSED, timeouts
 * and unreachable nameservers make the whole probe `unavailable`, so a missing DMARC record is
 * never reported when the question could not be answered. DMARC falls back to the
 * organisational domain (RFC 7489 section 6.6.3).
 *
 * "Does not exist" and "no records" are findings only from a resolver shown to work (DESIGN
 * "Honest answers": environment faults are never facts). Whenever an answer the profile relies on
 * is NXDOMAIN or NODATA (no MX, no TXT, no DMARC record), the resolver must first return a real
 * SOA record for the parent zone (the public suffix, e.g. `com`; a suffix without an SOA of its
 * own, such as a name inside `uk`, is passed up to its parent). A resolver that answers NXDOMAIN,
 * or NOERROR without records, for `com` too answers that for everything: the probe is then
 * `unavailable` / `resolver_unreliable`, never "does not exist" or "no mail server".
 */
export function createDnsProbe(options: DnsProbeOptions): DnsProbe {
  const { clock, timeoutMs, breaker } = resolveCommon(options)
  const { resolver } = options
  const confirmedForMs = options.zoneConfirmedForMs ?? 600_000
  /** Parent zones whose SOA the resolver returned lately, with when; a failure is never remembered. */
  const zonesFound = new Map<string, number>()

  /**
   * Throws unless the resolver returns an SOA record for the parent zone of `name` (or, when that
   * suffix has no SOA of its own, for a zone above it), so its empty answers can be believed.
   */
  const confirmResolver = async (name: string, signal: AbortSignal): Promise<void> => {
    const zone = getPublicSuffix(name) ?? name.split('.').at(-1) ?? name
    const found = zonesFound.get(zone)
    if (found !== undefined && clock.now().getTime() - found < confirmedForMs) return
    let candidate = zone
    for (;;) {
      try {
        await resolver.resolveSoa(candidate, signal)
        break
      } catch (error) {
        const code = (error as { code?: string }).code
        const parent = candidate.includes('.') ? candidate.slice(candidate.indexOf('.') + 1) : null
        // ENODATA: the name exists without an SOA of its own (a suffix inside its parent's zone):
        // the SOA above it decides. At the top, no SOA anywhere: a resolver that has no records.
        if (code === 'ENODATA' && parent) {
          candidate = parent
          continue
        }
        const answered = code === 'ENODATA' ? 'no records' : (code ?? 'an error')
        throw new UpstreamFailure(
          'resolver_unreliable',
          `the resolver answers ${answered} for the SOA of the parent zone ${zone === candidate ? zone : `${zone} (and ${candidate})`} too, so its "no such name" or "no records" for ${name} proves nothing`,
        )
      }
    }
    zonesFound.set(zone, clock.now().getTime())
  }

  /** One question; NXDOMAIN and NODATA are answers (`absent`), every other error fails the probe. */
  const ask = async <T>(
    question: () => Promise<T>,
    empty: T,
  ): Promise<{ value: T; nxdomain: boolean; absent: boolean }> => {
    try {
      return { value: await question(), nxdomain: false, absent: false }
    } catch (error) {
      const code = (error as { code?: string }).code
      if (code && ABSENT.has(code)) return { value: empty, nxdomain: code === 'ENOTFOUND', absent: true }
      throw dnsFailure(code, error)
    }
  }

  return {
    source: 'dns',
    breaker,
    probe(domain) {
      const name = normaliseDomain(domain)
      return runSourceCall({
        source: 'dns',
        clock,
        timeoutMs,
        breaker,
        call: async (signal) => {
          if (!name) throw new UpstreamFailure('request_rejected', `not a domain name: ${domain}`)
          const txtOf = (n: string) => ask(() => resolver.resolveTxt(n, signal), [] as string[][])
          const [mx, txt, dmarcHere] = await Promise.all([
            ask(() => resolver.resolveMx(name, signal), []),
            txtOf(name),
            txtOf(`_dmarc.${name}`),
          ])
          let dmarcDomain: string | null = name
          let dmarcRecord = findRecord(dmarcHere.value, /^v=dmarc1\b/i)
          let emptyAnswer = mx.absent || txt.absent || dmarcHere.absent
          const orgDomain = getDomain(name)
          if (!dmarcRecord && orgDomain && orgDomain !== name) {
            const dmarcOrg = await txtOf(`_dmarc.${orgDomain}`)
            emptyAnswer ||= dmarcOrg.absent
            dmarcRecord = findRecord(dmarcOrg.value, /^v=dmarc1\b/i)
            dmarcDomain = orgDomain
          }
          const absent = mx.nxdomain && txt.nxdomain
          if (emptyAnswer) await confirmResolver(name, signal)
          const realMx = mx.value.filter((m) => m.exchange !== '' && m.exchange !== '.')
          const spf = findRecord(txt.value, /^v=spf1(\s|$)/i)
          return {
            domain: name,
            domain_exists: !absent,
            has_mx: realMx.length > 0,
            mx: [...realMx].sort((a, b) => a.priority - b.priority),
            null_mx: mx.value.length === 1 && realMx.length === 0,
            has_spf: spf !== null,
            spf,
            has_dmarc: dmarcRecord !== null,
            dmarc: dmarcRecord,
            dmarc_policy: dmarcRecord ? dmarcPolicy(dmarcRecord) : null,
            dmarc_domain: dmarcRecord ? dmarcDomain : null,
          }
        },
      })
    },
  }
}

function findRecord(records: string[][], pattern: RegExp): string | null {
  for (const parts of records) {
    const record = parts.join('')
    if (pattern.test(record.trim())) return record.trim()
  }
  return null
}

function dmarcPolicy(record: string): DnsProfile['dmarc_policy'] {
  const p = /(?:^|;)\s*p\s*=\s*([a-z]+)/i.exec(record)?.[1]?.toLowerCase()
  return p === 'none' || p === 'quarantine' || p === 'reject' ? p : null
}

function dnsFailure(code: string | undefined, error: unknown): UpstreamFailure {
  const detail = code ?? (error instanceof Error ? error.message : String(error))
  switch (code) {
    case 'ETIMEOUT':
    case 'ECANCELLED':
      return new UpstreamFailure('timeout', detail)
    case 'ECONNREFUSED':
      return new UpstreamFailure('connection_refused', detail)
    case 'ESERVFAIL':
    case 'EREFUSED':
      return new UpstreamFailure('upstream_error', detail)
    case 'EBADRESP':
    case 'EFORMERR':
    case 'EBADNAME':
      return new UpstreamFailure('invalid_response', detail)
    default:
      return new UpstreamFailure('network_error', detail)
  }
}
