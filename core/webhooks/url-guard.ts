import {
  type AddressClassification,
  checkHost,
  classifyAddress,
  type LookupAll,
} from '../sources/address-guard.ts'

/**
 * The webhook SSRF guard (spec: Validation rules behind 422, webhook url):
 * https only, no credentials in the URL, the host must resolve, and every address it resolves
 * to must be public (no private, loopback, link-local, CGNAT, multicast, reserved, unspecified,
 * documentation, IPv4-mapped/compatible IPv6, NAT64, 6to4, Teredo or cloud metadata address).
 * The WHATWG URL parser turns decimal, octal and hex IPv4 forms (`https://2130706433/`,
 * `https://0x7f.1/`) into dotted quads first, so they are judged as the address they are.
 * Checked at registration and again before every delivery; the delivery connects to the
 * address checked here (pinned), so a second DNS answer cannot redirect it.
 * With `allowHttpLoopback` (development only), plain http to this machine's loopback is admitted
 * too; https URLs keep every rule above.
 */

/**
 * Test-only: admits receivers on 127.0.0.1 (and nothing else private). Never built from the
 * environment: only code (tests, test entry points) can pass it, and the composition root
 * refuses it when NODE_ENV=production.
 */
export interface LoopbackReceiverOverride {
  /** PEM of the CA that issued the test receivers' certificates (trusted on top of the system CAs). */
  ca: string
  /** Test DNS: names resolved here first (e.g. hooks.example.test -> 127.0.0.1). */
  hosts?: Record<string, string>
}

export interface UrlGuardOptions {
  lookup?: LookupAll
  testReceivers?: LoopbackReceiverOverride
  /**
   * Development on one machine: also admit plain `http://` receivers on this machine's loopback
   * (`127.0.0.1`, `localhost`, `[::1]`, any port). Everything else keeps the production rules
   * (https only, public addresses only). The composition root sets it from an explicit setting
   * that is refused when NODE_ENV=production.
   */
  allowHttpLoopback?: boolean
}

export type UrlCheck =
  | { ok: true; url: URL; hostname: string; port: number; address: string; family: 4 | 6 }
  | { ok: false; detail: string }

/** Whether an address may be a receiver: public, or loopback under the test override. */
function admitted(
  address: AddressClassification,
  testReceivers: LoopbackReceiverOverride | undefined,
): boolean {
  if (address.class === 'public') return true
  return testReceivers !== undefined && address.class === 'loopback' && address.address === '127.0.0.1'
}

/**
 * The loopback http receivers the development setting admits, and the address each connects to.
 * `localhost` is pinned to 127.0.0.1 without asking DNS (RFC 6761: it is this machine, and a
 * resolver must not be able to point it elsewhere).
 */
function loopbackHttpAddress(hostname: string): { address: string; family: 4 | 6 } | undefined {
  // The URL parser has already normalised the spelling (127.1 -> 127.0.0.1, [0::1] -> [::1], case).
  if (hostname === 'localhost' || hostname === '127.0.0.1') return { address: '127.0.0.1', family: 4 }
  if (hostname === '::1') return { address: '::1', family: 6 }
  return undefined
}

/** Checks a webhook URL and resolves the address to connect to. Never throws. */
export async function checkWebhookUrl(raw: string, options: UrlGuardOptions = {}): Promise<UrlCheck> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, detail: 'URL is not a valid absolute URL' }
  }
  if (url.protocol === 'http:' && options.allowHttpLoopback) {
    if (url.username || url.password) return { ok: false, detail: 'URL must not carry credentials' }
    const hostname = url.hostname.replace(/^\[|\]$/g, '')
    const pinned = loopbackHttpAddress(hostname)
    if (!pinned) {
      return {
        ok: false,
        detail: 'URL must use HTTPS (plain http is admitted only for 127.0.0.1, localhost and [::1])',
      }
    }
    return { ok: true, url, hostname, port: url.port ? Number(url.port) : 80, ...pinned }
  }
  if (url.protocol !== 'https:') return { ok: false, detail: 'URL must use HTTPS' }
  if (url.username || url.password) return { ok: false, detail: 'URL must not carry credentials' }
  const hostname = url.hostname.replace(/^\[|\]$/g, '')
  if (hostname === '') return { ok: false, detail: 'URL has no host' }
  const port = url.port ? Number(url.port) : 443
  const { testReceivers } = options
  const testAddress = testReceivers?.hosts?.[hostname.toLowerCase()]
  const lookup: LookupAll | undefined = testAddress
    ? async () => [{ address: testAddress, family: 4 }]
    : options.lookup
  const literal = classifyAddress(hostname)
  if (literal.class !== 'invalid' && !admitted(literal, testReceivers)) {
    return { ok: false, detail: `URL host ${literal.address} is not a public address (${literal.class})` }
  }
  const check = await checkHost(hostname, {
    allowPrivateAddresses: testReceivers !== undefined,
    ...(lookup ? { lookup } : {}),
  })
  if (!check.ok) {
    if (check.reason === 'unresolvable') return { ok: false, detail: `cannot resolve hostname ${hostname}` }
    if (check.reason === 'invalid_hostname') return { ok: false, detail: `URL host is not a valid hostname` }
    return {
      ok: false,
      detail: `URL host must not resolve to a private or reserved address (${check.detail})`,
    }
  }
  const refused = check.addresses.find((address) => !admitted(address, testReceivers))
  if (refused) {
    return {
      ok: false,
      detail: `URL host must not resolve to a private or reserved address (${hostname} resolves to ${refused.address}, ${refused.class})`,
    }
  }
  return { ok: true, url, hostname, port, address: check.address, family: check.family }
}
