import { describe, expect, it } from 'vitest'
import { validateDomain } from './domain.ts'

describe('validateDomain', () => {
  it('accepts bare hostnames and lowercases them', () => {
    expect(validateDomain('Philips.COM')).toEqual({
      ok: true,
      value: { hostname: 'philips.com', registrable_domain: 'philips.com', public_suffix: 'com' },
    })
    expect(validateDomain('www.kvk.nl').ok).toBe(true)
  })

  it('finds the registrable domain under multi-label public suffixes', () => {
    const result = validateDomain('www.bbc.co.uk')
    expect(result.ok && result.value.registrable_domain).toBe('bbc.co.uk')
    expect(result.ok && result.value.public_suffix).toBe('co.uk')
  })

  it('normalises internationalised names to punycode', () => {
    const result = validateDomain('Bücher.de')
    expect(result.ok && result.value.hostname).toBe('xn--bcher-kva.de')
    expect(validateDomain('xn--bcher-kva.de').ok).toBe(true)
  })

  it('drops one trailing root dot', () => {
    const result = validateDomain('example.com.')
    expect(result.ok && result.value.hostname).toBe('example.com')
  })

  it('refuses protocol, path, query, fragment, port and userinfo', () => {
    const cases: Array<[string, RegExp]> = [
      ['https://example.com', /protocol/],
      ['http://example.com/', /protocol/],
      ['example.com/about', /path/],
      ['example.com?q=1', /query/],
      ['example.com#top', /fragment/],
      ['example.com:8080', /port/],
      ['user@example.com', /user information/],
    ]
    for (const [input, message] of cases) {
      const result = validateDomain(input)
      expect(result.ok, input).toBe(false)
      if (!result.ok) expect(result.message, input).toMatch(message)
    }
  })

  it('refuses public suffixes alone, localhost, reserved TLDs and IP addresses', () => {
    for (const input of [
      'com',
      'co.uk',
      'localhost',
      'example.test',
      'example.invalid',
      'intranet.local',
      '192.168.1.1',
      '[::1]',
      '::1',
    ]) {
      expect(validateDomain(input).ok, input).toBe(false)
    }
  })

  it('refuses bad labels: hyphen at either end, underscores, empty labels, over 63 characters', () => {
    for (const input of [
      '-example.com',
      'example-.com',
      '_dmarc.example.com',
      'a..example.com',
      '.example.com',
      `${'a'.repeat(64)}.com`,
      'exa mple.com',
      '',
    ]) {
      expect(validateDomain(input).ok, input).toBe(false)
    }
    expect(validateDomain(`${'a'.repeat(63)}.com`).ok).toBe(true)
  })

  it('refuses names longer than 253 characters', () => {
    const label = 'a'.repeat(62)
    const long = `${[label, label, label, label].join('.')}.com` // 4*62 + 3 + 4 = 255
    expect(long.length).toBeGreaterThan(253)
    expect(validateDomain(long).ok).toBe(false)
  })
})
