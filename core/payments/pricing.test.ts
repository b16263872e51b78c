import { describe, expect, it } from 'vitest'
import { QUALITIES } from '../context.ts'
import { type Micros, usd } from '../money.ts'
import { BASE_MAINNET, createPaymentConfig } from './networks.ts'
import {
  accountPriceFor,
  buildX402Discovery,
  KEY_UPGRADE_PRICES,
  PRICED_OPERATION_IDS,
  PRICES,
  type TierPrices,
  x402PriceFor,
} from './pricing.ts'

/** The spec's price table (spec: Endpoints), [low, high] in USD per payment method. */
const SPEC_RANGES: Record<string, { x402: [string, string]; account: [string, string] }> = {
  entity_check: { x402: ['0.11', '0.29'], account: ['0.11', '1.05'] },
  risk_score: { x402: ['0.11', '0.25'], account: ['0.11', '0.90'] },
  reputation_score: { x402: ['0.11', '0.90'], account: ['0.11', '0.90'] },
  wallet_balance: { x402: ['0.11', '0.11'], account: ['0.11', '0.11'] },
  compliance_alerts: { x402: ['0.11', '0.11'], account: ['0.11', '0.11'] },
  sanctions_screen: { x402: ['0.005', '0.005'], account: ['0.11', '0.11'] },
  kyb_check: { x402: ['0.25', '0.29'], account: ['0.25', '1.50'] },
  entity_deep_check: { x402: ['0.88', '1.71'], account: ['0.88', '1.71'] },
  entity_report: { x402: ['0.55', '0.55'], account: ['1.85', '1.85'] },
  agent_check: { x402: ['0.005', '0.005'], account: ['0.75', '0.75'] },
  leads_verify: { x402: ['0.10', '0.10'], account: ['0.27', '0.27'] },
}

const tierValues = (prices: TierPrices): Micros[] =>
  QUALITIES.map((q) => prices[q]).filter((p): p is Micros => p !== undefined)

describe('price table', () => {
  it('prices exactly the operations the spec prices', () => {
    expect(Object.keys(PRICES).sort()).toEqual(Object.keys(SPEC_RANGES).sort())
    expect([...PRICED_OPERATION_IDS].sort()).toEqual(Object.keys(SPEC_RANGES).sort())
  })

  it('keeps every tier inside the spec range and reaches both ends of it', () => {
    for (const [id, ranges] of Object.entries(SPEC_RANGES)) {
      for (const method of ['x402', 'account'] as const) {
        const [low, high] = ranges[method].map(usd) as [Micros, Micros]
        const values = tierValues(PRICES[id as keyof typeof PRICES][method])
        for (const value of values) {
          expect(value, `${id} ${method}`).toBeGreaterThanOrEqual(low)
          expect(value, `${id} ${method}`).toBeLessThanOrEqual(high)
        }
        const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        expect(sorted[0], `${id} ${method} low`).toBe(low)
        expect(sorted.at(-1), `${id} ${method} high`).toBe(high)
      }
    }
  })

  it('charges 0.11 for a cached tier (0.25 for KYB) wherever one exists', () => {
    for (const [id, price] of Object.entries(PRICES)) {
      for (const method of ['x402', 'account'] as const) {
        const cached = price[method].cached
        if (cached !== undefined) expect(cached, id).toBe(id === 'kyb_check' ? usd('0.25') : usd('0.11'))
      }
    }
  })

  it('orders tiers cached <= fresh <= enhanced', () => {
    for (const price of Object.values(PRICES)) {
      for (const method of ['x402', 'account'] as const) {
        const t = price[method]
        if (t.cached !== undefined) expect(t.cached).toBeLessThanOrEqual(t.fresh)
        if (t.enhanced !== undefined) expect(t.fresh).toBeLessThanOrEqual(t.enhanced)
      }
    }
  })

  it('never makes x402 dearer than the account price', () => {
    for (const id of PRICED_OPERATION_IDS) {
      for (const quality of QUALITIES)
        expect(x402PriceFor(id, quality)).toBeLessThanOrEqual(accountPriceFor(id, quality))
    }
  })

  it('charges fresh for a quality an operation lacks', () => {
    expect(x402PriceFor('entity_deep_check', 'cached')).toBe(x402PriceFor('entity_deep_check', 'fresh'))
    expect(x402PriceFor('wallet_balance', 'enhanced')).toBe(usd('0.11'))
  })

  it('sells upgrades by ascending tier', () => {
    expect(KEY_UPGRADE_PRICES.starter).toBeLessThan(KEY_UPGRADE_PRICES.pro)
    expect(KEY_UPGRADE_PRICES.pro).toBeLessThan(KEY_UPGRADE_PRICES.enterprise)
  })
})

describe('buildX402Discovery', () => {
  const config = createPaymentConfig({
    networks: [BASE_MAINNET],
    evmPayTo: '0x2222222222222222222222222222222222222222',
  })
  const doc = buildX402Discovery({
    config,
    baseUrl: 'https://api.test',
    routes: {
      entity_check: { method: 'POST', path: '/v1/entity/check' },
      key_upgrade: { method: 'POST', path: '/v1/keys/upgrade/{tier}' },
    },
  })

  it('lists every priced operation with the table prices per tier', () => {
    expect(doc.operations.map((o) => o.operation).sort()).toEqual([...PRICED_OPERATION_IDS].sort())
    const entity = doc.operations.find((o) => o.operation === 'entity_check')
    expect(entity).toMatchObject({
      method: 'POST',
      resource: 'https://api.test/v1/entity/check',
      x402: { cached: { amount: '110000', usd: '0.110000' }, enhanced: { amount: '290000' } },
      account: { enhanced: { amount: '1050000' } },
    })
    expect(doc.operations.find((o) => o.operation === 'leads_verify')).toMatchObject({ unit: 'lead' })
  })

  it('lists the accepted networks, USDC contracts and upgrade prices, and is plain JSON', () => {
    expect(doc.networks).toEqual([
      expect.objectContaining({
        network: BASE_MAINNET,
        v1Network: 'base',
        chainId: 8453,
        contractAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      }),
    ])
    expect(doc.keyUpgrades.find((u) => u.tier === 'pro')).toMatchObject({
      path: '/v1/keys/upgrade/pro',
      x402: { amount: KEY_UPGRADE_PRICES.pro.toString() },
    })
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc)
  })
})
