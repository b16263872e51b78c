import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../test/support/fakes/index.ts'
import type { Caller, Quality } from '../context.ts'
import { PaymentRequiredError } from '../errors.ts'
import { usd } from '../money.ts'
import type { ChargeRequest } from './charge.ts'
import { BASE_SEPOLIA, createPaymentConfig } from './networks.ts'
import { createPaymentGate, type X402Payments } from './payment-gate.ts'
import type { OperationPrice } from './pricing.ts'

const KEY: Caller = { kind: 'key', keyId: 'k1', tier: 'free', mode: 'live', role: 'customer' }
const PRICE: OperationPrice = {
  x402: { cached: usd('0.11'), fresh: usd('0.20') },
  account: { cached: usd('0.11'), fresh: usd('0.58'), enhanced: usd('1.05') },
}

/** Reservations over one balance (the real ones are tested in core/keys/reservations.test.ts). */
function fakeKeys(balance: bigint) {
  const refunds: bigint[] = []
  const open = new Map<string, bigint>()
  const captured: bigint[] = []
  return {
    refunds,
    captured,
    get balance() {
      return balance
    },
    reservations: {
      async reserve(_keyId: string, amount: bigint) {
        if (balance < amount) return null
        balance -= amount
        const id = `r${open.size + refunds.length + captured.length}`
        open.set(id, amount)
        return { id, balance }
      },
      async capture(id: string) {
        captured.push(open.get(id)!)
        open.delete(id)
      },
      async release(id: string) {
        const amount = open.get(id)
        if (amount === undefined) return
        open.delete(id)
        refunds.push(amount)
        balance += amount
      },
    },
  }
}

const x402 = {
  config: createPaymentConfig({
    networks: [BASE_SEPOLIA],
    evmPayTo: '0x1111111111111111111111111111111111111111',
  }),
} as unknown as X402Payments

const request = (
  caller: Caller,
  quality: Quality = 'fresh',
  overrides: Partial<ChargeRequest> = {},
): ChargeRequest => ({
  operationId: 'entity_check',
  description: 'Entity check',
  price: PRICE,
  caller,
  quality,
  resourceUrl: 'http://x/v1/entity/check',
  ...overrides,
})

describe('payment gate (unit, fake keys)', () => {
  const clock = createManualClock(new Date('2026-11-24T00:00:00Z'))

  it('debits a live key at the account price times units and reports the balance left', async () => {
    const wallet = fakeKeys(usd('5'))
    const gate = createPaymentGate({ reservations: wallet.reservations as never, clock })
    const charge = await gate.open(request(KEY, 'enhanced', { units: 2 }))
    expect(charge.amount).toBe(usd('2.10'))
    expect(await charge.complete()).toEqual({
      paidWith: 'account',
      amount: usd('2.10'),
      balanceRemaining: usd('2.90'),
    })
    // Captured once the answer was delivered, never before.
    expect(wallet.captured).toEqual([])
    await charge.finish(true)
    await charge.cancel()
    expect(wallet.refunds).toEqual([])
    expect(wallet.captured).toEqual([usd('2.10')])
  })

  it('releases a completed debit whose answer was not delivered, exactly once', async () => {
    const wallet = fakeKeys(usd('5'))
    const gate = createPaymentGate({ reservations: wallet.reservations as never, clock })
    const charge = await gate.open(request(KEY))
    await charge.complete()
    await charge.finish(false)
    await charge.finish(false)
    await charge.cancel()
    expect(wallet.captured).toEqual([])
    expect(wallet.refunds).toHaveLength(1)
  })

  it('refunds a cancelled debit exactly once', async () => {
    const wallet = fakeKeys(usd('1'))
    const gate = createPaymentGate({ reservations: wallet.reservations as never, clock })
    const charge = await gate.open(request(KEY))
    await charge.cancel()
    await charge.cancel()
    expect(wallet.refunds).toEqual([usd('0.58')])
    expect(wallet.balance).toBe(usd('1'))
  })

  it('charges the fresh price for a tier the operation does not have', async () => {
    const wallet = fakeKeys(usd('1'))
    const gate = createPaymentGate({ reservations: wallet.reservations as never, clock })
    const charge = await gate.open(
      request(KEY, 'cached', { price: { ...PRICE, account: { fresh: usd('0.58') } } }),
    )
    expect(charge.amount).toBe(usd('0.58'))
  })

  it('challenges a key whose balance does not cover the call with insufficient_balance at the x402 price', async () => {
    const gate = createPaymentGate({ reservations: fakeKeys(usd('0.10')).reservations as never, clock, x402 })
    const error = await gate.open(request(KEY, 'fresh', { units: 3 })).catch((e) => e)
    expect(error).toBeInstanceOf(PaymentRequiredError)
    const challenge = (error as PaymentRequiredError).paymentRequired as {
      errorCode: string
      accepts: { amount: string }[]
    }
    expect(challenge.errorCode).toBe('insufficient_balance')
    expect(challenge.accepts[0]?.amount).toBe(usd('0.60').toString())
  })

  it('says in that challenge how to top up: the price, the balance route and the upgrades the key can buy', async () => {
    const gate = createPaymentGate({ reservations: fakeKeys(usd('0.10')).reservations as never, clock, x402 })
    const pro: Caller = { ...KEY, tier: 'pro' } as Caller
    const error = (await gate.open(request(pro)).catch((e) => e)) as PaymentRequiredError
    const expected = {
      errorCode: 'insufficient_balance',
      error: expect.stringContaining('top up the key with POST /v1/keys/upgrade/{tier}'),
      top_up: {
        price_usd: '0.58',
        balance_url: 'http://x/v1/keys/usage',
        upgrade_url: 'http://x/v1/keys/upgrade/{tier}',
        tiers: { pro: '100.00', enterprise: '500.00' },
      },
    }
    expect(error.paymentRequired).toMatchObject(expected)
    expect(error.body).toMatchObject(expected)
  })

  it('answers 402 without a challenge when x402 is off (the operator tops up), and 401 to a keyless caller', async () => {
    const gate = createPaymentGate({ reservations: fakeKeys(0n).reservations as never, clock })
    const refusal = await gate.open(request(KEY)).catch((e) => e)
    expect(refusal).not.toBeInstanceOf(PaymentRequiredError)
    expect(refusal).toMatchObject({
      code: 'payment_required',
      message: expect.stringContaining('this server takes no x402 payments, so its operator tops up keys'),
      extra: {
        errorCode: 'insufficient_balance',
        top_up: { price_usd: '0.58', balance_url: 'http://x/v1/keys/usage', how: expect.any(String) },
      },
    })
    expect(refusal.extra.top_up).not.toHaveProperty('upgrade_url')
    await expect(gate.open(request({ kind: 'anonymous' }))).rejects.toMatchObject({ code: 'unauthorized' })
  })

  it('challenges a keyless caller with the price of the requested tier when x402 is on', async () => {
    const gate = createPaymentGate({ reservations: fakeKeys(0n).reservations as never, clock, x402 })
    const error = (await gate
      .open(request({ kind: 'anonymous' }, 'cached'))
      .catch((e) => e)) as PaymentRequiredError
    expect(error).toBeInstanceOf(PaymentRequiredError)
    const challenge = error.paymentRequired as { errorCode?: string; accepts: { amount: string }[] }
    expect(challenge.errorCode).toBeUndefined()
    expect(challenge.accepts[0]?.amount).toBe(usd('0.11').toString())
  })

  it('lets free operations through with a key, never with a 402, and the operator pays nothing', async () => {
    const gate = createPaymentGate({ reservations: fakeKeys(0n).reservations as never, clock, x402 })
    expect((await gate.open(request(KEY, 'fresh', { price: null }))).paidWith).toBe('free')
    await expect(gate.open(request({ kind: 'anonymous' }, 'fresh', { price: null }))).rejects.toMatchObject({
      code: 'unauthorized',
    })
    const operator: Caller = { ...KEY, role: 'admin' } as Caller
    expect((await gate.open(request(operator))).paidWith).toBe('operator')
  })
})

describe('payment gate: rate-limit admission (spec: Limits, a refused call is never charged)', () => {
  const clock = createManualClock(new Date('2026-11-24T00:00:00Z'))
  const refuse = async () => {
    throw new Error('refused by the limiter')
  }

  it('admits a key before its balance is debited; a refusal debits nothing', async () => {
    const wallet = fakeKeys(usd('1'))
    const gate = createPaymentGate({ reservations: wallet.reservations as never, clock, x402 })
    const admitted: Caller[] = []
    await gate.open(request(KEY, 'fresh', { admit: async (payer) => void admitted.push(payer) }))
    expect(admitted).toEqual([KEY])
    await expect(gate.open(request(KEY, 'fresh', { admit: refuse }))).rejects.toThrow('refused')
    expect(wallet.balance).toBe(usd('1') - usd('0.58'))
  })

  it('admits a verified x402 payer by address before the ledger row; a refusal reserves and settles nothing', async () => {
    const reserved: string[] = []
    const payer = '0x2222222222222222222222222222222222222222'
    const paid = {
      ...x402,
      verifier: {
        verify: async (_source: unknown, requirements: { amount: string }[]) => ({
          isValid: true,
          payer,
          network: 'eip155:84532',
          amount: usd('0.20'),
          requirement: requirements[0],
        }),
      },
      ledger: {
        reserve: async () => {
          reserved.push('row')
          return 'ledger-1'
        },
      },
    } as unknown as X402Payments
    const gate = createPaymentGate({ reservations: fakeKeys(0n).reservations as never, clock, x402: paid })
    const admitted: Caller[] = []
    const charge = await gate.open(
      request({ kind: 'anonymous' }, 'fresh', {
        payment: 'eyJ4IjoxfQ==',
        admit: async (who) => void admitted.push(who),
      }),
    )
    expect(charge.caller).toEqual({ kind: 'x402', payer, network: 'eip155:84532' })
    expect(admitted).toEqual([{ kind: 'x402', payer, network: 'eip155:84532' }])
    expect(reserved).toHaveLength(1)
    await expect(
      gate.open(request({ kind: 'anonymous' }, 'fresh', { payment: 'eyJ4IjoxfQ==', admit: refuse })),
    ).rejects.toThrow('refused')
    expect(reserved).toHaveLength(1)
  })

  it('admits a key on a free operation; the operator is never asked', async () => {
    const gate = createPaymentGate({ reservations: fakeKeys(0n).reservations as never, clock, x402 })
    await expect(gate.open(request(KEY, 'fresh', { price: null, admit: refuse }))).rejects.toThrow('refused')
    const operator: Caller = { ...KEY, role: 'admin' } as Caller
    expect((await gate.open(request(operator, 'fresh', { admit: refuse }))).paidWith).toBe('operator')
  })
})
