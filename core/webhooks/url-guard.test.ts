import { describe, expect, it } from 'vitest'
import type { LookupAll } from '../sources/address-guard.ts'
import { checkWebhookUrl } from './url-guard.ts'

/** A resolver for the test: fixed answers, anything else does not resolve. Never the network. */
const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.0.0.5'],
  'loopback.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.216.34', '192.168.1.10'],
  'metadata.example.com': ['169.254.169.254'],
  'v6-loopback.example.com': ['::1'],
  'v6-ula.example.com': ['fd12:3456:789a::1'],
  'v6-mapped.example.com': ['::ffff:10.0.0.1'],
  'cgnat.example.com': ['100.64.12.1'],
  'localtest.me': ['127.0.0.1'],
  'nip.example.com': ['10.1.2.3'],
  'aws-v6-meta.example.com': ['fd00:ec2::254'],
  'multicast.example.com': ['224.0.0.251'],
  'zero.example.com': ['0.0.0.0'],
}
const lookup: LookupAll = async (hostname) => {
  const answers = DNS[hostname]
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}

/** Hostile webhook URL forms: every one must be refused. */
const HOSTILE: string[] = [
  // Not https
  'http://hooks.example.com/hook',
  'ftp://hooks.example.com/hook',
  'file:///etc/passwd',
  'gopher://hooks.example.com:70/_x',
  'javascript:alert(1)',
  'data:text/plain,hello',
  'ws://hooks.example.com/',
  'hooks.example.com/hook',
  '//hooks.example.com/hook',
  '',
  // Loopback in every spelling
  'https://127.0.0.1/hook',
  'https://127.1/hook',
  'https://127.0.1/hook',
  'https://2130706433/hook',
  'https://0x7f000001/hook',
  'https://0x7f.0x0.0x0.0x1/hook',
  'https://0177.0.0.1/hook',
  'https://017700000001/hook',
  'https://0x7f.1/hook',
  'https://127.000.000.001/hook',
  'https://localhost/hook',
  'https://LOCALHOST./hook',
  'https://api.localhost/hook',
  'https://[::1]/hook',
  'https://[0:0:0:0:0:0:0:1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[::127.0.0.1]/hook',
  'https://[::7f00:1]/hook',
  'https://localtest.me/hook',
  'https://loopback.example.com/hook',
  'https://v6-loopback.example.com/hook',
  // Private and CGNAT
  'https://10.0.0.1/hook',
  'https://10.255.255.255/hook',
  'https://172.16.0.1/hook',
  'https://172.31.255.1/hook',
  'https://192.168.0.1/hook',
  'https://0xc0a80001/hook',
  'https://3232235521/hook',
  'https://100.64.0.1/hook',
  'https://100.127.255.254/hook',
  'https://[fd00::1]/hook',
  'https://[fc00::1]/hook',
  'https://[fec0::1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://[::ffff:a00:1]/hook',
  'https://internal.example.com/hook',
  'https://mixed.example.com/hook',
  'https://cgnat.example.com/hook',
  'https://nip.example.com/hook',
  'https://v6-ula.example.com/hook',
  'https://v6-mapped.example.com/hook',
  // Link-local and cloud metadata
  'https://169.254.169.254/latest/meta-data/',
  'https://169.254.170.2/v2/credentials',
  'https://2852039166/latest/meta-data/',
  'https://0xa9fea9fe/latest/meta-data/',
  'https://0251.0376.0251.0376/latest/meta-data/',
  'https://169.254.0.1/hook',
  'https://100.100.100.200/latest/meta-data/',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/',
  'https://metadata/computeMetadata/v1/',
  'https://[fd00:ec2::254]/latest/meta-data/',
  'https://[fe80::1]/hook',
  'https://[fe80::1%25eth0]/hook',
  'https://metadata.example.com/hook',
  'https://aws-v6-meta.example.com/hook',
  // Unspecified, multicast, broadcast, reserved, documentation, benchmarking
  'https://0.0.0.0/hook',
  'https://0/hook',
  'https://[::]/hook',
  'https://zero.example.com/hook',
  'https://224.0.0.1/hook',
  'https://239.255.255.250/hook',
  'https://[ff02::1]/hook',
  'https://multicast.example.com/hook',
  'https://255.255.255.255/hook',
  'https://240.0.0.1/hook',
  'https://192.0.2.10/hook',
  'https://198.51.100.7/hook',
  'https://203.0.113.9/hook',
  'https://198.18.0.1/hook',
  'https://192.0.0.8/hook',
  'https://[2001:db8::1]/hook',
  'https://[100::1]/hook',
  // IPv6 transition forms wrapping IPv4 (NAT64, 6to4, Teredo, SIIT)
  'https://[64:ff9b::7f00:1]/hook',
  'https://[64:ff9b::10.0.0.1]/hook',
  'https://[64:ff9b::8.8.8.8]/hook',
  'https://[64:ff9b:1::a00:1]/hook',
  'https://[2002:7f00:1::]/hook',
  'https://[2002:c0a8:101::1]/hook',
  'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
  'https://[::ffff:0:7f00:1]/hook',
  // Credentials, unresolvable and malformed hosts
  'https://user:pass@hooks.example.com/hook',
  'https://hooks.example.com@127.0.0.1/hook',
  'https://nonexistent.example.com/hook',
  'https://exa mple.com/hook',
  'https://-bad-.example.com/hook',
  'https:///hook',
]

describe('webhook URL guard (SSRF)', () => {
  it(`refuses every one of ${HOSTILE.length} hostile URL forms`, async () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(60)
    const accepted: string[] = []
    for (const url of HOSTILE) {
      const check = await checkWebhookUrl(url, { lookup })
      if (check.ok) accepted.push(url)
      else expect(typeof check.detail, url).toBe('string')
    }
    console.log(`SSRF: ${HOSTILE.length} hostile URL forms tried, ${accepted.length} accepted`)
    expect(accepted).toEqual([])
  })

  it('accepts a public https host and pins the address it checked', async () => {
    const check = await checkWebhookUrl('https://hooks.example.com:8443/in?x=1', { lookup })
    expect(check).toMatchObject({
      ok: true,
      hostname: 'hooks.example.com',
      port: 8443,
      address: '93.184.216.34',
    })
    expect(await checkWebhookUrl('https://v6.example.com/hook', { lookup })).toMatchObject({
      ok: true,
      family: 6,
    })
  })

  it('says why, in words a user can act on', async () => {
    expect(await checkWebhookUrl('http://hooks.example.com/', { lookup })).toEqual({
      ok: false,
      detail: 'URL must use HTTPS',
    })
    expect(await checkWebhookUrl('https://nonexistent.example.com/', { lookup })).toEqual({
      ok: false,
      detail: 'cannot resolve hostname nonexistent.example.com',
    })
  })

  it('admits 127.0.0.1 only under the test override, and still nothing else private', async () => {
    const testReceivers = { ca: 'test', hosts: { 'hooks.example.test': '127.0.0.1' } }
    expect(
      await checkWebhookUrl('https://hooks.example.test:4443/', { lookup, testReceivers }),
    ).toMatchObject({
      ok: true,
      address: '127.0.0.1',
    })
    expect((await checkWebhookUrl('https://hooks.example.test:4443/', { lookup })).ok).toBe(false)
    expect((await checkWebhookUrl('https://10.0.0.1/', { lookup, testReceivers })).ok).toBe(false)
    expect((await checkWebhookUrl('https://169.254.169.254/', { lookup, testReceivers })).ok).toBe(false)
    expect((await checkWebhookUrl('https://internal.example.com/', { lookup, testReceivers })).ok).toBe(false)
  })

  it('admits plain http to loopback only under the development setting', async () => {
    const dev = { lookup, allowHttpLoopback: true }
    for (const [url, address, port] of [
      ['http://127.0.0.1:4000/hooks', '127.0.0.1', 4000],
      ['http://localhost:8080/', '127.0.0.1', 8080],
      ['http://LOCALHOST/hooks', '127.0.0.1', 80],
      ['http://[::1]:9000/hooks', '::1', 9000],
    ] as const) {
      expect(await checkWebhookUrl(url, dev), url).toMatchObject({ ok: true, address, port })
      // Without the setting: the production rules, unchanged.
      expect(await checkWebhookUrl(url, { lookup }), url).toEqual({ ok: false, detail: 'URL must use HTTPS' })
    }
    // The setting opens loopback http only: other private, link-local, metadata or public http
    // hosts, names resolving to loopback, and credentials stay refused.
    for (const url of [
      'http://10.0.0.1/',
      'http://192.168.1.10:4000/',
      'http://169.254.169.254/latest/meta-data/',
      'http://hooks.example.com/hook',
      'http://loopback.example.com/',
      'http://localtest.me/',
      'http://127.0.0.2/',
      'http://0.0.0.0:4000/',
      'http://[::]/',
      'http://api.localhost/',
      'http://user:pass@127.0.0.1/',
      'ftp://127.0.0.1/',
    ]) {
      expect((await checkWebhookUrl(url, dev)).ok, url).toBe(false)
    }
    expect(await checkWebhookUrl('http://10.0.0.1/', dev)).toEqual({
      ok: false,
      detail: 'URL must use HTTPS (plain http is admitted only for 127.0.0.1, localhost and [::1])',
    })
    // https keeps every production rule, with or without the setting: loopback, private and
    // metadata hosts are refused, a public host is admitted.
    for (const options of [{ lookup }, dev]) {
      for (const url of [
        'https://127.0.0.1/',
        'https://localhost/',
        'https://[::1]/',
        'https://10.0.0.1/',
        'https://169.254.169.254/',
        'https://loopback.example.com/',
      ]) {
        expect((await checkWebhookUrl(url, options)).ok, url).toBe(false)
      }
      expect((await checkWebhookUrl('https://hooks.example.com/', options)).ok).toBe(true)
    }
  })

  it('with the development setting on, still refuses every hostile URL form', async () => {
    const accepted: string[] = []
    for (const url of HOSTILE) {
      if ((await checkWebhookUrl(url, { lookup, allowHttpLoopback: true })).ok) accepted.push(url)
    }
    expect(accepted).toEqual([])
  })
})
