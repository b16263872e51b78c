import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { systemClock } from '../context.ts'
import { freeCharge } from '../payments/charge.ts'
import { defineOperation } from './define.ts'
import { invokeOperation, type OperationRuntime } from './invoke.ts'

const liar = defineOperation({
  id: 'liar',
  http: { method: 'POST', path: '/v1/liar' },
  summary: 'Answers something its schema does not allow',
  input: z.object({}).strict(),
  output: z.object({ score: z.number().int().min(0).max(100) }),
  price: null,
  ports: [],
  access: { sandbox: 'run' },
  run: async () => ({ score: 'high' }) as never,
})

function runtime(checkOutputs: boolean): OperationRuntime {
  const caller = { kind: 'key', keyId: 'k1', tier: 'free', mode: 'live', role: 'customer' } as const
  return {
    keys: { authenticate: async () => caller },
    payments: { open: async () => freeCharge(caller, 'free') },
    usage: { record: async () => {} },
    deps: {},
    clock: systemClock,
    checkOutputs,
  }
}

const call = (checkOutputs: boolean) =>
  invokeOperation(runtime(checkOutputs), liar, {
    apiKey: 'k',
    input: {},
    resourceUrl: 'http://x',
    requestId: 'r',
  })

describe('output checking (test services check every answer against its schema)', () => {
  it('fails a call whose output does not match the operation output schema', async () => {
    await expect(call(true)).rejects.toThrow(/liar: output does not match its schema/)
  })

  it('leaves outputs alone when the runtime does not ask for it (production)', async () => {
    await expect(call(false)).resolves.toMatchObject({ output: { score: 'high' } })
  })
})
