import { describe, expect, it } from 'vitest'
import { DEFAULT_RATE_LIMITS } from '../core/limits/index.ts'
import { OFFLINE_LISTS, testConfig } from '../test/support/test-config.ts'
import { loadConfig, rateLimitPolicyOf } from './config.ts'

describe('key-creation limits in the configuration', () => {
  it('default to 5/20/0 per client address and 0/3/0 per e-mail, and read RATE_LIMIT_SIGNUP_*', () => {
    expect(rateLimitPolicyOf(testConfig())?.signups).toEqual(DEFAULT_RATE_LIMITS.signups)
    expect(DEFAULT_RATE_LIMITS.signups).toEqual({
      perAddress: { perMinute: 5, perDay: 20, perMonth: Number.POSITIVE_INFINITY },
      perEmail: { perMinute: Number.POSITIVE_INFINITY, perDay: 3, perMonth: Number.POSITIVE_INFINITY },
    })
    const policy = rateLimitPolicyOf(
      testConfig({ RATE_LIMIT_SIGNUP_ADDRESS: '2/10/100', RATE_LIMIT_SIGNUP_EMAIL: '1/0/0' }),
    )
    expect(policy?.signups).toEqual({
      perAddress: { perMinute: 2, perDay: 10, perMonth: 100 },
      perEmail: { perMinute: 1, perDay: Number.POSITIVE_INFINITY, perMonth: Number.POSITIVE_INFINITY },
    })
    expect(rateLimitPolicyOf(testConfig({ RATE_LIMITS: 'off' }))).toBeUndefined()
  })

  it('stops start-up naming the variable when the value is malformed', () => {
    expect(() => loadConfig({ ...OFFLINE_LISTS, RATE_LIMIT_SIGNUP_EMAIL: '3 per day' })).toThrow(
      /RATE_LIMIT_SIGNUP_EMAIL: use per-minute\/per-day\/per-month/,
    )
  })
})

describe('WEBHOOKS_ALLOW_HTTP_LOOPBACK', () => {
  it('is off by default, reads true or false, and names the variable on anything else', () => {
    expect(loadConfig({ ...OFFLINE_LISTS }).WEBHOOKS_ALLOW_HTTP_LOOPBACK).toBe(false)
    expect(
      loadConfig({ ...OFFLINE_LISTS, WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true' }).WEBHOOKS_ALLOW_HTTP_LOOPBACK,
    ).toBe(true)
    expect(
      loadConfig({ ...OFFLINE_LISTS, WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'false' }).WEBHOOKS_ALLOW_HTTP_LOOPBACK,
    ).toBe(false)
    expect(() => loadConfig({ ...OFFLINE_LISTS, WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'yes' })).toThrow(
      /WEBHOOKS_ALLOW_HTTP_LOOPBACK: use true or false/,
    )
  })

  it('stops start-up naming the variable when NODE_ENV=production', () => {
    expect(() =>
      loadConfig({
        ...OFFLINE_LISTS,
        NODE_ENV: 'production',
        WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true',
      }),
    ).toThrow(/WEBHOOKS_ALLOW_HTTP_LOOPBACK: a development setting .*refused when NODE_ENV=production/)
    // Explicitly off is fine in production.
    expect(
      loadConfig({
        ...OFFLINE_LISTS,
        NODE_ENV: 'production',
        WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'false',
      }).WEBHOOKS_ALLOW_HTTP_LOOPBACK,
    ).toBe(false)
  })
})
