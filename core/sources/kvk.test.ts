import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type FakeKvkServer,
  KVK_ERRORS,
  startFakeKvkServer,
} from '../../test/support/fakes/fake-kvk-server.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { REFUSED_URL } from '../../test/support/fakes/refused-address.ts'
import { createKvkClient, kvkDate } from './kvk.ts'

let fake: FakeKvkServer
const clock = createManualClock('2025-06-01T12:00:00.000Z')

beforeAll(async () => {
  fake = await startFakeKvkServer()
})
afterAll(async () => {
  await fake.close()
})
beforeEach(() => {
  fake.behave({ mode: 'normal', delayMs: 0, error: undefined })
})

const client = (overrides: Partial<Parameters<typeof createKvkClient>[0]> = {}) =>
  createKvkClient({
    baseUrl: fake.url,
    apiKey: fake.apiKey,
    timeoutMs: 2000,
    clock,
    breaker: { failureThreshold: 100 },
    ...overrides,
  })

describe('KVK basisprofiel lookup', () => {
  it('reads an active company with trade names, SBI codes, legal form and visiting address', async () => {
    const result = await client().lookupCompany('68750110')
    expect(result.status).toBe('ok')
    if (result.status !== 'ok') return
    expect(result.data).toMatchObject({
      found: true,
      kvk_number: '68750110',
      name: 'Test BV Donald',
      statutory_name: 'Test BV Donald',
      trade_names: ['Test BV Donald', 'Test Donald Boot'],
      active: true,
      registered_on: '2017-04-24',
      ended_on: null,
      legal_form: 'BeslotenVennootschap',
      sbi_codes: [
        { code: '6420', description: 'Financiële holdings', main: true },
        { code: '01133', description: 'Teelt van groenten in de volle grond', main: false },
      ],
      address: { street: 'Hizzaarderlaan', house_number: '3A', postcode: '8823SJ', city: 'Lollum' },
    })
    expect(fake.requests.at(-1)?.headers.apikey).toBe(fake.apiKey)
  })

  it('reports a registration whose end date has passed as found but inactive', async () => {
    const result = await client().lookupCompany('69599068')
    expect(result).toMatchObject({
      status: 'ok',
      data: { found: true, active: false, ended_on: '2020-12-31' },
    })
  })

  it('treats an end date still in the future as active', async () => {
    const early = createManualClock('2019-01-01T00:00:00.000Z')
    const result = await client({ clock: early }).lookupCompany('69599068')
    expect(result).toMatchObject({ status: 'ok', data: { active: true, ended_on: '2020-12-31' } })
  })

  it('answers an unknown number (IPD0005) as an ok not-found, not as unavailable', async () => {
    const result = await client().lookupCompany('12345678')
    expect(result).toMatchObject({
      status: 'ok',
      data: { found: false, kvk_number: '12345678', not_found_code: 'IPD0005' },
    })
  })

  it('answers IPD5200 as not found', async () => {
    fake.behave({ mode: 'error', error: 'IPD5200' })
    const result = await client().lookupCompany('68750110')
    expect(result).toMatchObject({ status: 'ok', data: { found: false, not_found_code: 'IPD5200' } })
  })

  it('does not call KVK for a number that is not 8 digits', async () => {
    const before = fake.requests.length
    const result = await client().lookupCompany('1234')
    expect(result).toMatchObject({ status: 'ok', data: { found: false, not_found_code: 'invalid_number' } })
    expect(fake.requests.length).toBe(before)
  })

  it.each([
    ['IPD1002', 'upstream_busy'],
    ['IPD1003', 'upstream_busy'],
    ['IPD9999', 'upstream_error'],
    ['IPD1999', 'request_rejected'],
    ['http_503', 'upstream_error'],
    ['malformed', 'invalid_response'],
  ])('maps the real error answer %s to unavailable %s', async (error, reason) => {
    fake.behave({ mode: 'error', error })
    const result = await client().lookupCompany('68750110')
    expect(result).toMatchObject({ source: 'kvk', status: 'unavailable', reason })
  })

  it('keeps the KVK error code in the detail', async () => {
    fake.behave({ mode: 'error', error: 'IPD1003' })
    const result = await client().lookupCompany('68750110')
    expect(result.status === 'unavailable' && result.detail).toContain('IPD1003')
    expect(KVK_ERRORS.IPD1003?.status).toBe(404)
  })

  it('reports a refused API key as auth_failed', async () => {
    const result = await client({ apiKey: 'wrong' }).lookupCompany('68750110')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'auth_failed' })
  })
})

describe('KVK zoeken', () => {
  it('finds a company by name with its address and type', async () => {
    const result = await client().searchCompanies({ name: 'donald' })
    expect(result).toMatchObject({
      status: 'ok',
      data: {
        total: 1,
        results: [{ kvk_number: '68750110', name: 'Test BV Donald', type: 'rechtspersoon', active: true }],
      },
    })
    const sent = fake.requests.at(-1)!
    expect(sent.path).toBe('/api/v2/zoeken')
    expect(sent.query.get('naam')).toBe('donald')
  })

  it('reads IPD5200 as an empty result', async () => {
    const result = await client().searchCompanies({ name: 'nobody' })
    expect(result).toMatchObject({ status: 'ok', data: { total: 0, results: [] } })
  })

  it('marks an inactive hit from an inclusive search as inactive', async () => {
    const result = await client().searchCompanies({ kvkNumber: '69599068', includeInactive: true })
    expect(result).toMatchObject({
      status: 'ok',
      data: { results: [{ kvk_number: '69599068', active: false }] },
    })
  })
})

describe('KVK upstream trouble', () => {
  it('reports timeout when KVK answers after the timeout', async () => {
    fake.behave({ delayMs: 1500 })
    const result = await client({ timeoutMs: 100 }).lookupCompany('68750110')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'timeout' })
  })

  it('reports timeout when KVK never answers', async () => {
    fake.behave({ mode: 'hang' })
    const result = await client({ timeoutMs: 100 }).lookupCompany('68750110')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'timeout' })
  })

  it('reports a dropped connection as network_error', async () => {
    fake.behave({ mode: 'reset' })
    const result = await client().lookupCompany('68750110')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'network_error' })
  })

  it('reports connection_refused when nothing listens', async () => {
    const result = await client({ baseUrl: REFUSED_URL }).lookupCompany('68750110')
    expect(result).toMatchObject({ status: 'unavailable', reason: 'connection_refused' })
  })

  it('opens the circuit after N failures, short-circuits without calling KVK, and recovers half-open', async () => {
    const breakerClock = createManualClock()
    const kvk = client({ clock: breakerClock, breaker: { failureThreshold: 3, coolDownMs: 60_000 } })
    fake.behave({ mode: 'error', error: 'IPD9999' })
    for (let i = 0; i < 3; i++) expect((await kvk.lookupCompany('68750110')).status).toBe('unavailable')
    const before = fake.requests.length
    const shorted = await kvk.lookupCompany('68750110')
    expect(shorted).toMatchObject({ status: 'unavailable', reason: 'circuit_open' })
    expect(fake.requests.length).toBe(before)

    fake.behave({ mode: 'normal' })
    breakerClock.advance(60_000)
    expect(kvk.breaker.state()).toBe('half_open')
    const trial = await kvk.lookupCompany('68750110')
    expect(trial).toMatchObject({ status: 'ok', data: { found: true } })
    expect(kvk.breaker.state()).toBe('closed')
  })

  it('does not count a not-found answer as a failure', async () => {
    const kvk = client({ breaker: { failureThreshold: 1 } })
    await kvk.lookupCompany('12345678')
    expect(kvk.breaker.state()).toBe('closed')
  })
})

describe('kvkDate', () => {
  it.each([
    ['20150622', '2015-06-22'],
    ['20150600', '2015-06'],
    ['20150000', '2015'],
    ['00000000', null],
    ['', null],
  ])('reads %s as %s', (input, expected) => {
    expect(kvkDate(input)).toBe(expected)
  })
})
