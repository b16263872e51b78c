import { describe, expect, it } from 'vitest'
import { formatUsd, formatUsdShort, usd } from './money.ts'

describe('money formatting', () => {
  it('formatUsd shows all six decimals, exact, with the sign', () => {
    expect(formatUsd(usd('0.11'))).toBe('0.110000')
    expect(formatUsd(-usd('1.5'))).toBe('-1.500000')
    expect(formatUsd(10n ** 15n)).toBe('1000000000.000000')
  })

  it('formatUsdShort keeps two decimals and drops trailing zeros beyond them', () => {
    expect(formatUsdShort(usd('0.11'))).toBe('0.11')
    expect(formatUsdShort(usd('0.005'))).toBe('0.005')
    expect(formatUsdShort(usd('1'))).toBe('1.00')
    expect(formatUsdShort(usd('0.123456'))).toBe('0.123456')
    expect(formatUsdShort(0n)).toBe('0.00')
  })
})
