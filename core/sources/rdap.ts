import { domainToASCII } from 'node:url'
import { z } from 'zod'
import { checkHost, type LookupAll } from './address-guard.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { type FetchLike, failureForStatus, requestJson } from './http-json.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

/** What the registry's RDAP server says about a domain. */
export interface RdapDomain {
  /** The domain asked about, lower-case ASCII (punycode). */
  domain: string
  /** false: the RDAP server answered 404 (no such registration). */
  registered: boolean
  registrar: string | null
  registrar_iana_id: string | null
  /** ISO timestamps from `events` (registration, expiration, last changed). */
  registered_at: string | null
  expires_at: string | null
  last_changed_at: string | null
  /** Whole days since registration, by the injected clock; null when unknown. */
  domain_age_days: number | null
  /** RDAP status values ("active", "client transfer prohibited", ...). */
  status: string[]
  nameservers: string[]
  /** Base URL of the RDAP server that answered (from the IANA bootstrap). */
  rdap_server: string
}

export interface RdapClientOptions extends SourceClientOptions {
  /** IANA bootstrap for DNS (RFC 9224). Default `https://data.iana.org/rdap/dns.json`. */
  bootstrapUrl?: string
  /** How long the bootstrap is reused before it is fetched again. Default 24 h. */
  bootstrapTtlMs?: number
  /** Only in tests against fakes on 127.0.0.1. */
  allowPrivateAddresses?: boolean
  /** Resolver for the SSRF guard on RDAP server hosts. */
  lookup?: LookupAll
}

export interface RdapClient {
  readonly source: 'rdap'
  readonly breaker: CircuitBreaker
  /** Bootstrap lookup (cached), then `GET {rdapBase}domain/{name}` with `application/rdap+json`. */
  lookupDomain(domain: string): Promise<SourceResult<RdapDomain>>
}

export const IANA_RDAP_DNS_BOOTSTRAP = 'https://data.iana.org/rdap/dns.json'

const DAY_MS = 86_400_000

/** RFC 9224 bootstrap file: `{ services: [[["nl"], ["https://rdap.sidn.nl/"]], ...] }`. */
const Bootstrap = z.object({
  services: z.array(z.tuple([z.array(z.string()), z.array(z.string())]).rest(z.unknown())),
})

type Vcard = [string, unknown, string, unknown]

const Entity: z.ZodType<RdapEntity> = z.lazy(() =>
  z.object({
    roles: z.array(z.string()).nullish(),
    handle: z.string().nullish(),
    vcardArray: z.tuple([z.string(), z.array(z.array(z.unknown()))]).nullish(),
    publicIds: z.array(z.object({ type: z.string(), identifier: z.string() })).nullish(),
    entities: z.array(Entity).nullish(),
  }),
)
interface RdapEntity {
  roles?: string[] | null
  handle?: string | null
  vcardArray?: [string, unknown[][]] | null
  publicIds?: { type: string; identifier: string }[] | null
  entities?: RdapEntity[] | null
}

const DomainObject = z.object({
  objectClassName: z.string().nullish(),
  ldhName: z.string().nullish(),
  status: z.array(z.string()).nullish(),
  events: z.array(z.object({ eventAction: z.string(), eventDate: z.string().nullish() })).nullish(),
  entities: z.array(Entity).nullish(),
  nameservers: z.array(z.object({ ldhName: z.string().nullish() })).nullish(),
})

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/

/**
 * RDAP client with the IANA bootstrap (DESIGN "Upstream sources": domain data over RDAP). The
 * bootstrap is cached for `bootstrapTtlMs` and a stale copy is used when a refresh fails. A 404
 * from the registry is an ok answer (`registered: false`); a TLD without RDAP service is
 * `unavailable` / `no_rdap_server`. RDAP server hosts pass the SSRF guard unless
 * `allowPrivateAddresses` (tests). One breaker covers the whole source.
 */
export function createRdapClient(options: RdapClientOptions = {}): RdapClient {
  const { clock, timeoutMs, breaker, fetch } = resolveCommon(options)
  const bootstrapUrl = options.bootstrapUrl ?? IANA_RDAP_DNS_BOOTSTRAP
  const ttl = options.bootstrapTtlMs ?? DAY_MS
  let cache: { at: number; services: Map<string, string> } | undefined
  let refreshing: Promise<Map<string, string>> | undefined

  const guard = async (url: string) => {
    if (options.allowPrivateAddresses) return
    const host = new URL(url).hostname
    const check = await checkHost(host, { lookup: options.lookup })
    if (!check.ok) throw new UpstreamFailure('address_refused', check.detail)
  }

  const loadBootstrap = async (): Promise<Map<string, string>> => {
    await guard(bootstrapUrl)
    const res = await requestJson(fetch, bootstrapUrl, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (res.status !== 200) throw failureForStatus(res.status, 'from the IANA bootstrap')
    const parsed = Bootstrap.safeParse(res.json)
    if (!parsed.success) throw new UpstreamFailure('invalid_response', 'bootstrap shape')
    const services = new Map<string, string>()
    for (const [labels, urls] of parsed.data.services) {
      const base = urls.find((u) => u.startsWith('https://')) ?? urls[0]
      if (!base) continue
      for (const label of labels) services.set(label.toLowerCase(), base.endsWith('/') ? base : `${base}/`)
    }
    cache = { at: clock.now().getTime(), services }
    return services
  }

  const services = async (): Promise<Map<string, string>> => {
    if (cache && clock.now().getTime() - cache.at < ttl) return cache.services
    refreshing ??= loadBootstrap().finally(() => {
      refreshing = undefined
    })
    try {
      return await refreshing
    } catch (error) {
      if (cache) return cache.services
      throw error
    }
  }

  return {
    source: 'rdap',
    breaker,
    lookupDomain(domain) {
      const name = normaliseDomain(domain)
      return runSourceCall({
        source: 'rdap',
        clock,
        timeoutMs,
        breaker,
        call: async (signal) => {
          if (!name) throw new UpstreamFailure('request_rejected', `not a domain name: ${domain}`)
          const base = serverFor(name, await services())
          if (!base) throw new UpstreamFailure('no_rdap_server', `no RDAP service for ${name}`)
          const res = await getFollowingRedirects(fetch, `${base}domain/${name}`, signal, guard)
          if (res.status === 404) return notRegistered(name, base)
          if (res.status !== 200) throw failureForStatus(res.status, rdapError(res.json))
          const parsed = DomainObject.safeParse(res.json)
          if (!parsed.success) throw new UpstreamFailure('invalid_response', 'RDAP domain shape')
          return toDomain(name, base, parsed.data, clock.now())
        },
      })
    },
  }
}

async function getFollowingRedirects(
  fetch: FetchLike,
  url: string,
  signal: AbortSignal,
  guard: (url: string) => Promise<void>,
) {
  let target = url
  for (let hop = 0; hop < 3; hop++) {
    await guard(target)
    const res = await requestJson(fetch, target, {
      headers: { accept: 'application/rdap+json, application/json' },
      redirect: 'manual',
      signal,
    })
    const location = res.headers.get('location')
    if (res.status < 300 || res.status >= 400 || !location) return res
    target = new URL(location, target).toString()
  }
  throw new UpstreamFailure('invalid_response', 'too many redirects')
}

/** Lower-case ASCII (punycode) domain without trailing dot, or null when it is not a domain. */
export function normaliseDomain(input: string): string | null {
  const ascii = domainToASCII(input.trim().replace(/\.$/, '').toLowerCase())
  return ascii && HOSTNAME.test(ascii) ? ascii : null
}

/** RFC 9224: the longest matching label sequence wins ("co.uk" before "uk"). */
function serverFor(name: string, services: Map<string, string>): string | undefined {
  const labels = name.split('.')
  for (let i = 1; i < labels.length; i++) {
    const found = services.get(labels.slice(i).join('.'))
    if (found) return found
  }
  return undefined
}

function notRegistered(domain: string, base: string): RdapDomain {
  return {
    domain,
    registered: false,
    registrar: null,
    registrar_iana_id: null,
    registered_at: null,
    expires_at: null,
    last_changed_at: null,
    domain_age_days: null,
    status: [],
    nameservers: [],
    rdap_server: base,
  }
}

function toDomain(domain: string, base: string, obj: z.infer<typeof DomainObject>, now: Date): RdapDomain {
  const event = (action: string) => {
    const date = obj.events?.find((e) => e.eventAction === action)?.eventDate
    if (!date) return null
    const parsed = new Date(date)
    return Number.isNaN(parsed.getTime()) ? null : parsed.toISOString()
  }
  const registeredAt = event('registration')
  const registrar = findRegistrar(obj.entities ?? [])
  return {
    domain,
    registered: true,
    registrar: registrar
      ? (vcardValue(registrar, 'fn') ?? vcardValue(registrar, 'org') ?? registrar.handle ?? null)
      : null,
    registrar_iana_id: registrar?.publicIds?.find((p) => /iana/i.test(p.type))?.identifier ?? null,
    registered_at: registeredAt,
    expires_at: event('expiration'),
    last_changed_at: event('last changed'),
    domain_age_days:
      registeredAt === null
        ? null
        : Math.max(0, Math.floor((now.getTime() - Date.parse(registeredAt)) / DAY_MS)),
    status: obj.status ?? [],
    nameservers: (obj.nameservers ?? []).flatMap((n) => (n.ldhName ? [n.ldhName.toLowerCase()] : [])),
    rdap_server: base,
  }
}

function findRegistrar(entities: RdapEntity[]): RdapEntity | undefined {
  for (const entity of entities) {
    if (entity.roles?.includes('registrar')) return entity
    const nested = findRegistrar(entity.entities ?? [])
    if (nested) return nested
  }
  return undefined
}

/** Reads a property from a jCard (RFC 7095): `["vcard", [["fn", {}, "text", "Name"], ...]]`. */
function vcardValue(entity: RdapEntity, property: string): string | null {
  const row = entity.vcardArray?.[1]?.find((r) => r[0] === property) as Vcard | undefined
  const value = row?.[3]
  if (typeof value === 'string' && value.trim() !== '') return value.trim()
  if (Array.isArray(value) && typeof value[0] === 'string' && value[0].trim() !== '') return value[0].trim()
  return null
}

/** RFC 9083 error body: `{ errorCode, title, description: [...] }`. */
function rdapError(json: unknown): string | undefined {
  const parsed = z
    .object({
      errorCode: z.number().optional(),
      title: z.string().optional(),
      description: z.array(z.string()).optional(),
    })
    .safeParse(json)
  if (!parsed.success) return undefined
  return [parsed.data.title, ...(parsed.data.description ?? [])].filter(Boolean).join(': ') || undefined
}
