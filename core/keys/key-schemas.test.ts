import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { type FieldError, ServiceError } from '../errors.ts'
import { parseUsdAmount, usd } from '../money.ts'
import { parseWith } from '../operations/parse.ts'
import { AdminCreateKeyInput, AdminCreditInput, CreateKeyInput } from './key-schemas.ts'

const KEY = { email: 'buyer@example.com', tier: 'pro' }

function errorsOf(schema: z.ZodType, raw: unknown): FieldError[] {
  try {
    parseWith(schema, raw)
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError)
    return (error as ServiceError).fields ?? []
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`)
}

describe('admin USD amounts', () => {
  it.each([
    [5, '5', 5_000_000n],
    ['5', '5', 5_000_000n],
    ['5.25', '5.25', 5_250_000n],
    [0.1, '0.1', 100_000n],
    [0.000001, '0.000001', 1n],
    ['25.50', '25.5', 25_500_000n],
    ['007.000100', '7.0001', 7_000_100n],
    [0, '0', 0n],
    ['999999999.999999', '999999999.999999', 999_999_999_999_999n],
  ])('accepts balance_usd %j exactly as %s', (sent, decimal, micros) => {
    const input = parseWith(AdminCreateKeyInput, { ...KEY, balance_usd: sent })
    expect(input.balance_usd).toBe(decimal)
    expect(usd(input.balance_usd)).toBe(micros)
  })

  it('accepts amount_usd as a number or a string', () => {
    expect(usd(parseWith(AdminCreditInput, { amount_usd: 0.1 }).amount_usd)).toBe(100_000n)
    expect(usd(parseWith(AdminCreditInput, { amount_usd: '0.000001' }).amount_usd)).toBe(1n)
  })

  it('defaults balance_usd to 0', () => {
    expect(parseWith(AdminCreateKeyInput, KEY).balance_usd).toBe('0')
  })

  it.each([
    ['1.1234567', 'must be a USD amount with at most 6 decimals (got "1.1234567")'],
    [0.30000000000000004, 'must be a USD amount with at most 6 decimals (got 0.30000000000000004)'],
    [1e-7, 'must be a USD amount with at most 6 decimals (got 1e-7)'],
    [-1, 'must not be negative (got -1)'],
    ['-0.5', 'must not be negative (got "-0.5")'],
    ['abc', 'must be a decimal USD amount such as "25.00" (got "abc")'],
    ['1e3', 'must be a decimal USD amount such as "25.00" (got "1e3")'],
    ['', 'must be a decimal USD amount such as "25.00" (got "")'],
    [1e21, 'must be less than 1000000000 USD (got 1e+21)'],
    ['1000000000', 'must be less than 1000000000 USD (got "1000000000")'],
    [Number.NaN, 'expected string or number, received NaN'],
    [Number.POSITIVE_INFINITY, 'expected string or number, received Infinity'],
    [true, 'expected string or number, received boolean'],
    [null, 'expected string or number, received null'],
  ])('refuses balance_usd %j, naming the field and the rule', (sent, message) => {
    expect(errorsOf(AdminCreateKeyInput, { ...KEY, balance_usd: sent })).toEqual([
      { field: 'balance_usd', message },
    ])
  })

  it('names amount_usd in its errors', () => {
    expect(errorsOf(AdminCreditInput, { amount_usd: -1 })).toEqual([
      { field: 'amount_usd', message: 'must not be negative (got -1)' },
    ])
    expect(errorsOf(AdminCreditInput, { amount_usd: '1.1234567' })).toEqual([
      { field: 'amount_usd', message: 'must be a USD amount with at most 6 decimals (got "1.1234567")' },
    ])
    expect(errorsOf(AdminCreditInput, {})).toEqual([{ field: 'amount_usd', message: 'is required' }])
  })
})

describe('parseUsdAmount', () => {
  it('expands exponent notation of numbers exactly', () => {
    expect(parseUsdAmount(1.5e-5)).toEqual({ ok: true, value: '0.000015' })
    expect(parseUsdAmount(1e-6)).toEqual({ ok: true, value: '0.000001' })
    expect(parseUsdAmount(5e-7).ok).toBe(false)
    expect(parseUsdAmount(123456789.123456)).toEqual({ ok: true, value: '123456789.123456' })
  })

  it('refuses non-finite numbers itself', () => {
    expect(parseUsdAmount(Number.NaN)).toEqual({ ok: false, message: 'must be a finite number (got NaN)' })
    expect(parseUsdAmount(Number.NEGATIVE_INFINITY)).toEqual({
      ok: false,
      message: 'must be a finite number (got -Infinity)',
    })
  })

  it('accepts zero written with a sign', () => {
    expect(parseUsdAmount(-0)).toEqual({ ok: true, value: '0' })
    expect(parseUsdAmount('-0.00')).toEqual({ ok: true, value: '0' })
  })
})

describe('self-service key creation', () => {
  it('keeps the upgrade hint for tiers that cannot be created directly', () => {
    const [error] = errorsOf(CreateKeyInput, KEY)
    expect(error?.field).toBe('tier')
    expect(error?.message).toContain('POST /v1/keys/upgrade/pro')
  })
})
