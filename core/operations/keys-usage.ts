import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { keyUsageView } from '../keys/index.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf } from './operation-context.ts'

export const KeysUsageInput = z.object({}).strict()

export const KeysUsageResult = z
  .object({
    key_id: z.string(),
    key_prefix: z.string().describe('The first characters of the key, to tell keys apart'),
    email: z.string(),
    tier: z.string().describe('sandbox, free, starter, pro or enterprise'),
    mode: z.string().describe('live or sandbox'),
    status: z.string().describe('active or revoked (an expired key keeps status active; see expires_at)'),
    balance_micros: z.number().int().describe('Prepaid balance in micro-USDC (exact)'),
    balance_usdc: z.number().describe('The same in USD, for reading'),
    spent_micros: z.number().int().describe('Spent from the balance so far, micro-USDC'),
    spent_usdc: z.number(),
    paid_calls: z.number().int().describe('Calls paid from the balance'),
    created_at: z.string(),
    expires_at: z.string().nullable().describe('When the key stops working (null: never)'),
  })
  .strict()

/** GET /v1/keys/usage (spec: Key operations): the calling key's balance and spend. Free, key required. */
export const keysUsage = defineOperation({
  id: 'keys_usage',
  http: { method: 'GET', path: '/v1/keys/usage' },
  title: 'Key usage',
  summary: "The calling key's balance, tier and spend",
  description: 'Money is exact in micro-USDC (balance_micros) and as USD numbers. Free; needs an API key.',
  input: KeysUsageInput,
  output: KeysUsageResult,
  price: null,
  ports: ['keys'],
  access: { sandbox: 'run' },
  run: async (_input, ctx) => {
    const caller = keyCallerOf(ctx)
    if (caller.role === 'admin') throw new ServiceError('not_found', 'the operator key has no usage record')
    const record = await ctx.deps.keys?.get(caller.keyId)
    if (!record) throw new ServiceError('unauthorized', 'invalid API key')
    return keyUsageView(record)
  },
})
