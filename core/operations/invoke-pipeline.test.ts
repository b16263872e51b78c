import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createManualClock } from '../../test/support/fakes/index.ts'
import type { Caller } from '../context.ts'
import { PaymentRequiredError, ServiceError } from '../errors.ts'
import { usd } from '../money.ts'
import type { Charge, ChargeRequest, PaymentGate } from '../payments/charge.ts'
import type { UsageEvent } from '../usage/usage-recorder.ts'
import { defineOperation } from './define.ts'
import { invokeOperation, type OperationRuntime } from './invoke.ts'

const LIVE: Caller = { kind: 'key', keyId: 'live', tier: 'free', mode: 'live', role: 'customer' }
const SANDBOX: Caller = { kind: 'key', keyId: 'sbx', tier: 'sandbox', mode: 'sandbox', role: 'customer' }
const PRO: Caller = { ...LIVE, keyId: 'pro', tier: 'pro' } as Caller

/** A gate that records what it was asked and how each charge ended. */
function fakeGate(options: { failSettlement?: boolean } = {}) {
  const opened: ChargeRequest[] = []
  const ended: string[] = []
  const gate: PaymentGate = {
    async open(request) {
      opened.push(request)
      const charge: Charge = {
        paidWith: 'account',
        amount: usd('0.50'),
        caller: request.caller,
        async complete() {
          if (options.failSettlement) {
            ended.push('settlement failed')
            throw new PaymentRequiredError({ body: {}, paymentRequired: {} }, 'settlement failed')
          }
          ended.push('completed')
          return { paidWith: 'account', amount: usd('0.50'), balanceRemaining: 0n }
        },
        async finish(delivered) {
          ended.push(delivered ? 'delivered' : 'not delivered')
        },
        async cancel() {
          ended.push('cancelled')
        },
      }
      return charge
    },
  }
  return { gate, opened, ended }
}

function runtimeWith(gate: PaymentGate, onWriteError?: OperationRuntime['onWriteError']) {
  const usage: UsageEvent[] = []
  const runtime: OperationRuntime = {
    keys: {
      authenticate: async (key) =>
        key === undefined ? { kind: 'anonymous' } : ({ live: LIVE, sbx: SANDBOX, pro: PRO }[key] as Caller),
    },
    payments: gate,
    usage: { record: async (event) => void usage.push(event) },
    deps: {},
    clock: createManualClock(new Date('2026-11-24T00:00:00Z')),
    onWriteError,
  }
  return { runtime, usage }
}

const stored: string[] = []
const priced = defineOperation({
  id: 'priced',
  http: { method: 'POST', path: '/v1/priced', status: 201 },
  summary: 'A priced test operation',
  input: z.object({ n: z.number().int(), fail: z.boolean().optional() }).strict(),
  output: z.object({ n: z.number() }),
  price: { x402: { fresh: usd('0.10') }, account: { fresh: usd('0.50') } },
  units: (input) => input.n,
  ports: [],
  access: { sandbox: 'mock', minTier: 'free' },
  mock: (input) => ({ n: -input.n }),
  run: async (input, ctx) => {
    ctx.afterPayment(async () => void stored.push(`n=${input.n}`))
    if (input.fail) throw new ServiceError('unavailable', 'upstream down')
    return { n: input.n }
  },
})
const free = defineOperation({
  id: 'free',
  http: { method: 'GET', path: '/v1/free' },
  summary: 'A free key operation',
  input: z.object({ q: z.string() }).strict(),
  output: z.object({ q: z.string() }),
  price: null,
  ports: [],
  access: { sandbox: 'refuse', minTier: 'pro' },
  run: async (input) => input,
})

const request = (apiKey: string | undefined, input: unknown, quality?: string) => ({
  apiKey,
  input,
  quality,
  qualityField: 'X-Response-Quality',
  resourceUrl: 'http://x/v1/priced',
  requestId: 'r1',
})

describe('invokeOperation (the one pipeline)', () => {
  it('charges, runs, completes, then keeps the writes, and returns the operation status', async () => {
    stored.length = 0
    const { gate, opened, ended } = fakeGate()
    const { runtime, usage } = runtimeWith(gate)
    const result = await invokeOperation(runtime, priced, request('live', { n: 3 }))
    expect(result).toMatchObject({ output: { n: 3 }, status: 201, receipt: { paidWith: 'account' } })
    expect(opened[0]).toMatchObject({ operationId: 'priced', units: 3, quality: 'fresh', caller: LIVE })
    expect(ended).toEqual(['completed'])
    expect(stored).toEqual(['n=3'])
    expect(usage).toEqual([
      expect.objectContaining({ keyId: 'live', outcome: 'ok', costMicros: usd('0.50') }),
    ])
  })

  it('cancels the charge and drops the writes when the operation fails', async () => {
    stored.length = 0
    const { gate, ended } = fakeGate()
    const { runtime, usage } = runtimeWith(gate)
    await expect(invokeOperation(runtime, priced, request('live', { n: 1, fail: true }))).rejects.toThrow(
      'upstream down',
    )
    expect(ended).toEqual(['cancelled'])
    expect(stored).toEqual([])
    expect(usage[0]).toMatchObject({ outcome: 'unavailable', costMicros: 0n, paidWith: 'free' })
  })

  it('drops the writes of a call whose settlement failed (nothing unpaid is stored)', async () => {
    stored.length = 0
    const { gate } = fakeGate({ failSettlement: true })
    const { runtime, usage } = runtimeWith(gate)
    await expect(invokeOperation(runtime, priced, request('live', { n: 2 }))).rejects.toBeInstanceOf(
      PaymentRequiredError,
    )
    expect(stored).toEqual([])
    expect(usage[0]).toMatchObject({ outcome: 'payment_required', costMicros: 0n })
  })

  it('delivers a paid answer even when a kept write fails, and reports the failure', async () => {
    const failures: string[] = []
    const failing = defineOperation({
      ...priced,
      run: async (input, ctx) => {
        ctx.afterPayment(async () => {
          throw new Error('disk full')
        })
        return { n: input.n }
      },
    })
    const { runtime } = runtimeWith(fakeGate().gate, (error, id) => failures.push(`${id}: ${String(error)}`))
    await expect(invokeOperation(runtime, failing, request('live', { n: 1 }))).resolves.toMatchObject({
      output: { n: 1 },
    })
    expect(failures).toEqual(['priced: Error: disk full'])
  })

  it('validates before charging: a 422 names the field and opens no charge', async () => {
    const { gate, opened } = fakeGate()
    const { runtime, usage } = runtimeWith(gate)
    const error = await invokeOperation(runtime, priced, request('live', { n: 'x' })).catch((e) => e)
    expect(error).toMatchObject({ code: 'validation_failed', fields: [{ field: 'n' }] })
    expect(opened).toEqual([])
    expect(usage[0]).toMatchObject({ outcome: 'validation_failed' })
  })

  it('names the quality field the adapter gives when the tier is unknown', async () => {
    const { runtime } = runtimeWith(fakeGate().gate)
    const error = await invokeOperation(runtime, priced, request('live', { n: 1 }, 'premium')).catch((e) => e)
    expect(error).toMatchObject({ code: 'validation_failed', fields: [{ field: 'X-Response-Quality' }] })
  })

  it('gives a sandbox key the mock without touching the gate', async () => {
    const { gate, opened } = fakeGate()
    const { runtime } = runtimeWith(gate)
    const result = await invokeOperation(runtime, priced, request('sbx', { n: 4 }))
    expect(result).toMatchObject({ output: { n: -4 }, receipt: { paidWith: 'sandbox', amount: 0n } })
    expect(opened).toEqual([])
  })

  it('asks for a key before validating a free operation, and records no usage for anonymous callers', async () => {
    const { gate, opened } = fakeGate()
    const { runtime, usage } = runtimeWith(gate)
    const error = await invokeOperation(runtime, free, request(undefined, { bad: true })).catch((e) => e)
    expect(error).toMatchObject({ code: 'unauthorized' })
    expect(opened).toEqual([])
    expect(usage).toEqual([])
  })

  it('applies the tier rule and the sandbox rule of a free operation', async () => {
    const { runtime } = runtimeWith(fakeGate().gate)
    await expect(invokeOperation(runtime, free, request('live', { q: 'a' }))).rejects.toMatchObject({
      code: 'forbidden',
    })
    await expect(invokeOperation(runtime, free, request('sbx', { q: 'a' }))).rejects.toMatchObject({
      code: 'forbidden',
    })
    await expect(invokeOperation(runtime, free, request('pro', { q: 'a' }))).resolves.toMatchObject({
      output: { q: 'a' },
      status: 200,
    })
  })
})
