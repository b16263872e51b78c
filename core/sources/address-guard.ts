import { lookup as dnsLookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'

/**
 * What an IP address is, as far as an outbound connection from this service is concerned.
 * Only `public` may be contacted in production; everything else could reach the operator's own
 * network, the host itself or a cloud metadata endpoint (SSRF).
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'invalid'

export interface AddressClassification {
  address: string
  family: 4 | 6 | 0
  class: AddressClass
  /** ipaddr.js range name ("private", "uniqueLocal", "carrierGradeNat", ...), for logs. */
  range: string
}

/** Cloud instance metadata endpoints (AWS, GCP, Azure, Alibaba, AWS IPv6). */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'])

/** Cloud metadata names (GCP, AWS) refused before any lookup. */
const METADATA_HOSTNAMES = new Set([
  'metadata.google.internal',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
])

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')

const RANGE_CLASS: Record<string, AddressClass> = {
  unicast: 'public',
  private: 'private',
  uniqueLocal: 'private',
  carrierGradeNat: 'private',
  deprecatedSiteLocal: 'private',
  loopback: 'loopback',
  linkLocal: 'link_local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'multicast',
}

/**
 * Classifies one IP address literal. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the
 * IPv4 address it carries. Any range ipaddr.js knows other than plain unicast (documentation,
 * benchmarking, 6to4, Teredo, NAT64, ...) is `reserved`: such a target is never a legitimate
 * public server for us and may tunnel to a private one.
 */
export function classifyAddress(address: string): AddressClassification {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  if (!ipaddr.isValid(bare)) return { address, family: 0, class: 'invalid', range: 'invalid' }
  const parsed = ipaddr.process(bare)
  const normalised = parsed.toString()
  const family = parsed.kind() === 'ipv4' ? 4 : 6
  const range = parsed.range()
  if (METADATA_ADDRESSES.has(normalised)) return { address: normalised, family, class: 'metadata', range }
  const kind = RANGE_CLASS[range] ?? 'reserved'
  // IPv6 outside 2000::/3 (global unicast) is never a public server: ipaddr.js calls the
  // IPv4-compatible ::a.b.c.d form and unassigned space "unicast", and ::7f00:1 is 127.0.0.1.
  if (kind === 'public' && parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) {
    return { address: normalised, family, class: 'reserved', range: 'notGlobalUnicast' }
  }
  return { address: normalised, family, class: kind, range }
}

/** True when an outbound connection to this address is allowed in production. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).class === 'public'
}

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>

/** Default resolver: the system resolver, every address, in the order the system gives. */
export const systemLookupAll: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

export interface HostCheckOptions {
  /** Only for tests against fakes on 127.0.0.1; never true in production. */
  allowPrivateAddresses?: boolean
  lookup?: LookupAll
}

export type HostCheck =
  | {
      ok: true
      /** The address to connect to: pin it so a second DNS answer cannot differ (no rebinding). */
      address: string
      family: 4 | 6
      addresses: AddressClassification[]
    }
  | {
      ok: false
      reason: 'invalid_hostname' | 'unresolvable' | 'private_address'
      detail: string
      addresses: AddressClassification[]
    }

const HOSTNAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i

/**
 * Resolves a user-supplied hostname (or IP literal) and decides whether this service may connect
 * to it. Every resolved address must be public: a name with one public and one private record
 * is refused, because the connection could land on either. Used by the TLS probe and RDAP here,
 * and meant for webhook delivery (DESIGN "Webhooks": SSRF guard with the checked IP pinned).
 */
export async function checkHost(hostname: string, options: HostCheckOptions = {}): Promise<HostCheck> {
  const host = hostname.trim().replace(/\.$/, '').toLowerCase()
  const literal = classifyAddress(host)
  let addresses: AddressClassification[]
  if (literal.class !== 'invalid') {
    addresses = [literal]
  } else {
    if (!HOSTNAME.test(host)) {
      return { ok: false, reason: 'invalid_hostname', detail: `not a hostname: ${hostname}`, addresses: [] }
    }
    if (!options.allowPrivateAddresses && (host === 'localhost' || host.endsWith('.localhost'))) {
      return { ok: false, reason: 'private_address', detail: `${host} is local`, addresses: [] }
    }
    if (!options.allowPrivateAddresses && METADATA_HOSTNAMES.has(host)) {
      return {
        ok: false,
        reason: 'private_address',
        detail: `${host} is a cloud metadata endpoint`,
        addresses: [],
      }
    }
    let resolved: { address: string; family: number }[]
    try {
      resolved = await (options.lookup ?? systemLookupAll)(host)
    } catch (error) {
      const code = (error as { code?: string }).code ?? String(error)
      return { ok: false, reason: 'unresolvable', detail: `${host}: ${code}`, addresses: [] }
    }
    if (resolved.length === 0) {
      return { ok: false, reason: 'unresolvable', detail: `${host}: no addresses`, addresses: [] }
    }
    addresses = resolved.map((r) => classifyAddress(r.address))
  }
  const refused = addresses.find((a) => a.class !== 'public')
  if (refused && !options.allowPrivateAddresses) {
    return {
      ok: false,
      reason: 'private_address',
      detail: `${host} resolves to ${refused.address} (${refused.class})`,
      addresses,
    }
  }
  const usable = addresses.find((a) => a.family !== 0)
  if (!usable) return { ok: false, reason: 'unresolvable', detail: `${host}: no usable address`, addresses }
  return { ok: true, address: usable.address, family: usable.family as 4 | 6, addresses }
}
