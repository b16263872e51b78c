import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createManualClock } from '../../test/support/fakes/index.ts'
import type { Caller } from '../context.ts'
import { PaymentRequiredError } from '../errors.ts'
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts'
import { usd } from '../money.ts'
import type { PaymentGate } from '../payments/charge.ts'
import { defineOperation } from './define.ts'
import { type InvocationRequest, invokeOperation, type OperationRuntime } from './invoke.ts'

const LIVE: Caller = { kind: 'key', keyId: 'live', tier: 'pro', mode: 'live', role: 'customer' }

/** Everything that happened, in order: charge steps, claims, stored answers and operation writes. */
let events: string[] = []

function harness(options: { failSettlement?: boolean; reservationId?: string } = {}) {
  events = []
  const gate: PaymentGate = {
    async open(request) {
      events.push('charge opened')
      return {
        paidWith: 'account',
        amount: usd('0.50'),
        caller: request.caller,
        ...(options.reservationId ? { reservationId: options.reservationId } : {}),
        async complete() {
          if (options.failSettlement) throw new PaymentRequiredError({ body: {}, paymentRequired: {} })
          events.push('charge completed')
          return { paidWith: 'account', amount: usd('0.50') }
        },
        async finish(delivered) {
          events.push(delivered ? 'charge captured' : 'charge released')
        },
        async cancel() {
          events.push('charge cancelled')
        },
      }
    },
  }
  const store: IdempotencyStore = {
    async claim(request) {
      events.push(`claim ${request.idempotencyKey}`)
      return { kind: 'claimed', claimId: 'c1' }
    },
    async answer(_keyId, key, _claimId, answer, reservationId) {
      events.push(`answered ${key} ${answer.status} ${answer.body} under ${reservationId}`)
      return true
    },
    async complete(_keyId, key, _claimId, answer) {
      events.push(`stored ${key} ${answer.status} ${answer.body}`)
    },
    async release(_keyId, key) {
      events.push(`released ${key}`)
    },
  }
  const runtime: OperationRuntime = {
    keys: { authenticate: async (key) => (key === 'live' ? LIVE : { kind: 'anonymous' }) },
    payments: gate,
    usage: { record: async () => {} },
    deps: {},
    clock: createManualClock(new Date('2026-11-25T00:00:00Z')),
    idempotency: store,
  }
  return { runtime }
}

const priced = defineOperation({
  id: 'priced',
  http: { method: 'POST', path: '/v1/priced' },
  summary: 'A priced test operation',
  input: z.object({ n: z.number().int() }).strict(),
  output: z.object({ n: z.number() }),
  price: { x402: { fresh: usd('0.10') }, account: { fresh: usd('0.50') } },
  ports: [],
  access: { sandbox: 'refuse' },
  run: async (input, ctx) => {
    ctx.afterPayment(async () => void events.push('operation write'))
    return { n: input.n }
  },
})
const free = defineOperation({
  id: 'free',
  http: { method: 'POST', path: '/v1/free' },
  summary: 'A free key operation',
  input: z.object({ n: z.number().int() }).strict(),
  output: z.object({ n: z.number() }),
  price: null,
  ports: [],
  access: { sandbox: 'refuse' },
  run: async (input) => input,
})

const request = (idempotencyKey: string, extra: Partial<InvocationRequest> = {}): InvocationRequest => ({
  apiKey: 'live',
  input: { n: 1 },
  resourceUrl: 'http://x/v1/priced',
  requestId: 'r1',
  idempotencyKey,
  idempotencyKeyField: 'Idempotency-Key',
  ...extra,
})

describe('invokeOperation with an Idempotency-Key', () => {
  it('claims before the charge and stores the answer once the charge completed, before the writes', async () => {
    const { runtime } = harness()
    await invokeOperation(runtime, priced, request('k1'))
    expect(events).toEqual([
      'claim k1',
      'charge opened',
      'charge completed',
      'stored k1 200 {"n":1}',
      'operation write',
    ])
  })

  it('writes a key debit’s answer under its reservation before the capture (the capture marks it done)', async () => {
    const { runtime } = harness({ reservationId: 'r1' })
    await invokeOperation(runtime, priced, request('k1'))
    expect(events).toEqual([
      'claim k1',
      'charge opened',
      'answered k1 200 {"n":1} under r1',
      'charge completed',
      'operation write',
    ])
  })

  it('captures the debit only once the answer was delivered, once however often settle is called', async () => {
    const { runtime } = harness({ reservationId: 'r1' })
    const result = await invokeOperation(runtime, priced, request('k1'))
    expect(events).not.toContain('charge captured')
    await result.settle(true)
    await result.settle(false)
    expect(events.slice(-2)).toEqual(['operation write', 'charge captured'])
  })

  it('an answer not delivered: the debit is released and an answer stored apart deleted, so a retry runs', async () => {
    const { runtime } = harness()
    const result = await invokeOperation(runtime, priced, request('k1'))
    await result.settle(false)
    expect(events.slice(-3)).toEqual(['operation write', 'charge released', 'released k1'])
  })

  it('releases the claim when settlement fails, so nothing unpaid is stored', async () => {
    const { runtime } = harness({ failSettlement: true })
    await expect(invokeOperation(runtime, priced, request('k1'))).rejects.toBeInstanceOf(PaymentRequiredError)
    expect(events).toEqual(['claim k1', 'charge opened', 'released k1'])
  })

  it('ignores the header (even a malformed one) for x402 payments and free operations', async () => {
    const { runtime } = harness()
    await invokeOperation(runtime, priced, request('bad\u0001key', { payment: 'eyJ4NDAyVmVyc2lvbiI6Mn0=' }))
    await invokeOperation(runtime, free, request('bad\u0001key'))
    expect(events.filter((event) => event.startsWith('claim') || event.startsWith('stored'))).toEqual([])
  })

  it('refuses a malformed key on a key-paid call before anything is charged', async () => {
    const { runtime } = harness()
    await expect(invokeOperation(runtime, priced, request(''))).rejects.toMatchObject({
      code: 'validation_failed',
      fields: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    })
    expect(events).toEqual([])
  })
})
