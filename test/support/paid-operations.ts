import { z } from 'zod'
import { ServiceError } from '../../core/errors.ts'
import { type AnyOperation, defineOperation } from '../../core/operations/define.ts'
import { financialHealth } from '../../core/operations/financial-health.ts'
import { keysUsage } from '../../core/operations/keys-usage.ts'
import { PRICES } from '../../core/payments/pricing.ts'

/**
 * A priced test operation for the payment path: costs what risk_score costs, echoes its input,
 * fails on demand (to prove a failed call is never charged) and can wait (to kill a server
 * between verification and settlement).
 */
export const paidEcho = defineOperation({
  id: 'paid_echo',
  http: { method: 'POST', path: '/v1/test/paid-echo' },
  summary: 'Test operation priced like risk_score',
  input: z
    .object({
      text: z.string().max(100).describe('Echoed back'),
      fail: z.boolean().optional().describe('Fail with a 503 after payment verification'),
      wait_ms: z.number().int().min(0).max(120_000).optional().describe('Wait before answering'),
    })
    .strict(),
  output: z.object({ echo: z.string(), payer: z.string() }),
  price: PRICES.risk_score,
  ports: [],
  access: { sandbox: 'refuse' },
  run: async (input, ctx) => {
    if (input.wait_ms) await new Promise((resolve) => setTimeout(resolve, input.wait_ms))
    if (input.fail) throw new ServiceError('unavailable', 'upstream down (test)')
    const payer =
      ctx.caller.kind === 'x402'
        ? ctx.caller.payer
        : ctx.caller.kind === 'key'
          ? ctx.caller.keyId
          : 'anonymous'
    return { echo: input.text, payer }
  },
})

/** The registry of the payment tests: the priced test operation plus the free key routes. */
export const paidRegistry: readonly AnyOperation[] = [paidEcho, keysUsage, financialHealth] as AnyOperation[]
