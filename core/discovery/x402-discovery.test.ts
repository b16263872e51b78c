import { describe, expect, it } from 'vitest'
import { paidRegistry } from '../../test/support/paid-operations.ts'
import { PRICES } from '../payments/pricing.ts'
import { issuedRequirementCheck } from './x402-discovery.ts'

/** The facilitator routes settle only what the service itself would ask for. */
describe('issuedRequirementCheck', () => {
  const price = PRICES.risk_score.x402.fresh

  it('accepts its own resource at one of its prices, and nothing else', () => {
    const issued = issuedRequirementCheck(paidRegistry, 'https://api.example.test')
    expect(issued('https://api.example.test/v1/test/paid-echo', price)).toBe(true)
    expect(issued('https://api.example.test/v1/test/paid-echo', 1n)).toBe(false)
    expect(issued('https://evil.example/v1/test/paid-echo', price)).toBe(false)
    expect(issued('https://api.example.test/v1/unknown', price)).toBe(false)
    expect(issued('not a url', price)).toBe(false)
    expect(issued('https://api.example.test/v1/keys/upgrade/pro', 100_000_000n)).toBe(true)
  })

  it('accepts resources under a PUBLIC_BASE_URL with a path', () => {
    const issued = issuedRequirementCheck(paidRegistry, 'https://host.example/api/')
    expect(issued('https://host.example/api/v1/test/paid-echo', price)).toBe(true)
    expect(issued('https://host.example/v1/test/paid-echo', price)).toBe(false)
  })
})
