import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { FakeHttpServer } from '../../test/support/fakes/fake-http-server.ts'
import { startFakeViesServer } from '../../test/support/fakes/fake-vies-server.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createViesClient, splitVatNumber } from './vies.ts'

let fake: FakeHttpServer
const clock = createManualClock('2025-06-01T12:00:00.000Z')

beforeAll(async () => {
  fake = await startFakeViesServer()
})
afterAll(async () => {
  await fake.close()
})
beforeEach(() => {
  fake.behave({ mode: 'normal', delayMs: 0, error: undefined })
})

const client = (overrides: Partial<Parameters<typeof createViesClient>[0]> = {}) =>
  createViesClient({
    baseUrl: fake.url,
    timeoutMs: 2000,
    clock,
    breaker: { failureThreshold: 100 },
    ...overrides,
  })

describe('VIES check-vat-number', () => {
  it('posts countryCode and the national number and reads a valid answer', async () => {
    const result = await client().checkVat({ vatNumber: 'NL 8590.48153.B01' })
    expect(result).toMatchObject({
      source: 'vies',
      status: 'ok',
      data: {
        valid: true,
        country_code: 'NL',
        vat_number: '859048153B01',
        name: 'VOORBEELD HANDEL B.V.',
        input_rejected: false,
      },
    })
    const sent = fake.requests.at(-1)!
    expect(sent.method).toBe('POST')
    expect(sent.path).toBe('/check-vat-number')
    expect(JSON.parse(sent.body)).toEqual({ countryCode: 'NL', vatNumber: '859048153B01' })
  })

  it('asks VIES (which answers for Northern Ireland) for XI numbers, including GD and HA numbers', async () => {
    for (const [input, vatNumber] of [
      ['XI980780684', '980780684'],
      ['XIGD001', 'GD001'],
      ['XIHA500', 'HA500'],
    ] as const) {
      const result = await client().checkVat({ vatNumber: input })
      expect(result.status, input).toBe('ok')
      expect(JSON.parse(fake.requests.at(-1)!.body)).toEqual({ countryCode: 'XI', vatNumber })
    }
  })

  it('reads "---" as an undisclosed name and address', async () => {
    const result = await client().checkVat({ countryCode: 'BE', vatNumber: '0200065765' })
    expect(result).toMatchObject({ status: 'ok', data: { valid: true, name: null, address: null } })
  })

  it('reports an unknown number as valid: false', async () => {
    const result = await client().checkVat({ countryCode: 'NL', vatNumber: '000000000B00' })
    expect(result).toMatchObject({ status: 'ok', data: { valid: false, input_rejected: false } })
  })

  it('answers INVALID_INPUT as ok, valid: false with input_rejected', async () => {
    const result = await client().checkVat({ countryCode: 'DE', vatNumber: '201' })
    expect(result).toMatchObject({ status: 'ok', data: { valid: false, input_rejected: true } })
  })

  it('rejects a non-member country without calling VIES', async () => {
    const before = fake.requests.length
    const result = await client().checkVat({ countryCode: 'US', vatNumber: '123' })
    expect(result).toMatchObject({ status: 'ok', data: { valid: false, input_rejected: true } })
    expect(fake.requests.length).toBe(before)
  })

  it.each([
    ['300', 'upstream_error', 'SERVICE_UNAVAILABLE'],
    ['301', 'upstream_busy', 'MS_UNAVAILABLE'],
    ['302', 'timeout', 'TIMEOUT'],
    ['400', 'request_rejected', 'VAT_BLOCKED'],
    ['401', 'auth_failed', 'IP_BLOCKED'],
    ['500', 'rate_limited', 'GLOBAL_MAX_CONCURRENT_REQ'],
    ['501', 'rate_limited', 'GLOBAL_MAX_CONCURRENT_REQ_TIME'],
    ['600', 'rate_limited', 'MS_MAX_CONCURRENT_REQ'],
    ['601', 'rate_limited', 'MS_MAX_CONCURRENT_REQ_TIME'],
  ])('maps the error body of test number %s to unavailable %s (%s)', async (number, reason, code) => {
    const result = await client().checkVat({ countryCode: 'DE', vatNumber: number })
    expect(result).toMatchObject({ status: 'unavailable', reason })
    expect(result.status === 'unavailable' && result.detail).toContain(code)
  })

  it('reads an error body sent with HTTP 500 the same way', async () => {
    fake.behave({ mode: 'error', error: 'MS_UNAVAILABLE@500' })
    const result = await client().checkVat({ countryCode: 'NL', vatNumber: '859048153B01' })
    expect(result).toMatchObject({ status: 'unavailable', reason: 'upstream_busy' })
  })

  it('maps a 503 page without error body to upstream_error and an HTML 200 to invalid_response', async () => {
    fake.behave({ mode: 'error', error: 'http_503' })
    expect(await client().checkVat({ vatNumber: 'NL859048153B01' })).toMatchObject({
      reason: 'upstream_error',
    })
    fake.behave({ mode: 'error', error: 'malformed' })
    expect(await client().checkVat({ vatNumber: 'NL859048153B01' })).toMatchObject({
      reason: 'invalid_response',
    })
  })

  it('reports timeout when VIES answers too late or never', async () => {
    fake.behave({ delayMs: 1500 })
    expect(await client({ timeoutMs: 100 }).checkVat({ vatNumber: 'NL859048153B01' })).toMatchObject({
      status: 'unavailable',
      reason: 'timeout',
    })
    fake.behave({ mode: 'hang', delayMs: 0 })
    expect(await client({ timeoutMs: 100 }).checkVat({ vatNumber: 'NL859048153B01' })).toMatchObject({
      reason: 'timeout',
    })
  })

  it('reports connection_refused when VIES does not listen', async () => {
    // Port 3 is below the ephemeral range (no listener of a parallel test can take it, as one could
    // take a port a fake just freed) and not on fetch's list of blocked ports.
    const result = await client({ baseUrl: 'http://127.0.0.1:3' }).checkVat({ vatNumber: 'NL859048153B01' })
    expect(result, JSON.stringify(result)).toMatchObject({
      status: 'unavailable',
      reason: 'connection_refused',
    })
  })

  it('opens the circuit after N failures and closes it after a good half-open trial', async () => {
    const breakerClock = createManualClock()
    const vies = client({ clock: breakerClock, breaker: { failureThreshold: 2, coolDownMs: 5000 } })
    fake.behave({ mode: 'error', error: 'SERVICE_UNAVAILABLE' })
    await vies.checkVat({ vatNumber: 'NL859048153B01' })
    await vies.checkVat({ vatNumber: 'NL859048153B01' })
    const before = fake.requests.length
    expect(await vies.checkVat({ vatNumber: 'NL859048153B01' })).toMatchObject({ reason: 'circuit_open' })
    expect(fake.requests.length).toBe(before)
    fake.behave({ mode: 'normal' })
    breakerClock.advance(5000)
    expect(await vies.checkVat({ vatNumber: 'NL859048153B01' })).toMatchObject({
      status: 'ok',
      data: { valid: true },
    })
    expect(vies.breaker.state()).toBe('closed')
  })
})

describe('splitVatNumber', () => {
  it.each([
    [{ vatNumber: 'NL859048153B01' }, { countryCode: 'NL', vatNumber: '859048153B01' }],
    [
      { countryCode: 'gr', vatNumber: '094259216' },
      { countryCode: 'EL', vatNumber: '094259216' },
    ],
    [{ vatNumber: 'GR094259216' }, { countryCode: 'EL', vatNumber: '094259216' }],
    [
      { countryCode: 'AT', vatNumber: 'ATU12345678' },
      { countryCode: 'AT', vatNumber: 'U12345678' },
    ],
    [
      { countryCode: 'AT', vatNumber: 'U12345678' },
      { countryCode: 'AT', vatNumber: 'U12345678' },
    ],
    [
      { countryCode: 'BE', vatNumber: '0200.065.765' },
      { countryCode: 'BE', vatNumber: '0200065765' },
    ],
  ])('splits %j', (input, expected) => {
    expect(splitVatNumber(input)).toEqual(expected)
  })
})
