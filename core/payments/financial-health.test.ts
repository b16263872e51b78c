import { describe, expect, it } from 'vitest'
import type { KeyCaller } from '../context.ts'
import { FinancialHealthResult } from '../operations/financial-health.ts'
import { type FinancialHealthDeps, financialHealth } from './financial-health.ts'

const admin: KeyCaller = { kind: 'key', keyId: 'admin', tier: 'enterprise', mode: 'live', role: 'admin' }
const customer: KeyCaller = { ...admin, keyId: 'key_1', role: 'customer' }

const deps = (treasuryBalance?: FinancialHealthDeps['treasuryBalance']): FinancialHealthDeps => ({
  keys: { spentTotal: async () => 2_500_000n },
  settlementConfigured: true,
  solanaSettlementConfigured: false,
  ...(treasuryBalance ? { treasuryBalance } : {}),
})

describe('financialHealth treasury balance', () => {
  it('is the balance read from the chain, in USDC', async () => {
    const result = await financialHealth(
      deps(async () => 12_345_678n),
      admin,
    )
    expect(result).toMatchObject({ treasury_balance_usdc: 12.345678, total_revenue_usdc: 2.5 })
    expect(FinancialHealthResult.parse(result)).toEqual(result)
  })

  it('is 0 only when the chain says 0', async () => {
    const result = await financialHealth(
      deps(async () => 0n),
      admin,
    )
    expect(result).toMatchObject({ treasury_balance_usdc: 0 })
  })

  it('is null, not 0, when it cannot be read: no reader, no answer, or the read fails', async () => {
    for (const reader of [
      undefined,
      async () => undefined,
      async () => {
        throw new Error('rpc down')
      },
    ]) {
      const result = await financialHealth(deps(reader), admin)
      expect(result).toMatchObject({ treasury_balance_usdc: null })
      expect(result).not.toHaveProperty('treasury_balance_known')
      expect(FinancialHealthResult.parse(result)).toEqual(result)
    }
  })

  it('is not disclosed to customer keys', async () => {
    const result = await financialHealth(
      deps(async () => 1n),
      customer,
    )
    expect(result).not.toHaveProperty('treasury_balance_usdc')
  })
})
