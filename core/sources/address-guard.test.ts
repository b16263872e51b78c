import { describe, expect, it } from 'vitest'
import { checkHost, classifyAddress, isPublicAddress } from './address-guard.ts'

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['not-an-ip', 'invalid'],
  ])('classifies %s as %s', (address, expected) => {
    expect(classifyAddress(address).class).toBe(expected)
  })

  it('accepts a bracketed IPv6 literal', () => {
    expect(isPublicAddress('[2a00:1450:4001:80b::200e]')).toBe(true)
  })
})

describe('checkHost', () => {
  const lookup = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host]
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }

  it('pins the resolved public address', async () => {
    const result = await checkHost('Example.NL.', { lookup: lookup({ 'example.nl': ['93.184.216.34'] }) })
    expect(result).toMatchObject({ ok: true, address: '93.184.216.34', family: 4 })
  })

  it('refuses a name with any private address among its answers', async () => {
    const result = await checkHost('mixed.example', {
      lookup: lookup({ 'mixed.example': ['93.184.216.34', '10.0.0.5'] }),
    })
    expect(result).toMatchObject({ ok: false, reason: 'private_address' })
  })

  it('refuses a metadata IP literal without resolving it', async () => {
    const result = await checkHost('169.254.169.254', {
      lookup: async () => {
        throw new Error('must not resolve')
      },
    })
    expect(result).toMatchObject({ ok: false, reason: 'private_address' })
  })

  it('refuses localhost names before resolving', async () => {
    expect(await checkHost('db.localhost', { lookup: lookup({}) })).toMatchObject({
      ok: false,
      reason: 'private_address',
    })
  })

  it('allows loopback only when allowPrivateAddresses is set (tests)', async () => {
    expect(await checkHost('127.0.0.1', { allowPrivateAddresses: true })).toMatchObject({
      ok: true,
      address: '127.0.0.1',
    })
  })

  it('reports an unresolvable name and a malformed one', async () => {
    expect(await checkHost('nowhere.example', { lookup: lookup({}) })).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    })
    expect(await checkHost('bad host/../x', { lookup: lookup({}) })).toMatchObject({
      ok: false,
      reason: 'invalid_hostname',
    })
  })
})
