import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { financialHealth as readFinancialHealth } from '../payments/financial-health.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf } from './operation-context.ts'

export const FinancialHealthInput = z.object({}).strict()

const operatorOnly = (field: z.ZodType, description?: string) =>
  field.optional().describe(description ? `Operator keys only. ${description}` : 'Operator keys only')

export const FinancialHealthResult = z
  .object({
    total_revenue_usdc: z
      .number()
      .min(0)
      .describe('Revenue: platform-wide for the operator, else attributed to the calling key'),
    agents_tracked: z.number().int().min(0).describe('Distinct x402 payers whose payments settled'),
    frozen: z
      .boolean()
      .describe(
        "True while the operator's maintenance switch is on: no priced call is accepted or charged (only operator keys see it on, other keys get 503)",
      ),
    treasury_balance_usdc: operatorOnly(
      z.number().min(0).nullable(),
      'USDC held by the payTo address, read from the chain now; null when it could not be read (no RPC or payTo configured, or the chain did not answer), never 0 for unknown',
    ),
    pending_settlements: operatorOnly(z.number().int().min(0)),
    exhausted_settlements: operatorOnly(z.number().int().min(0)),
    failed_settlements: operatorOnly(z.number().int().min(0)),
    unknown_outcome_settlements: operatorOnly(
      z
        .number()
        .int()
        .min(0)
        .describe(
          'Settlements interrupted by a crash whose outcome cannot be learned (no RPC): never guessed',
        ),
    ),
    uncollected_usdc: operatorOnly(z.number().min(0)),
    settlement_configured: operatorOnly(z.boolean()),
    solana_settlement_configured: operatorOnly(z.boolean()),
    failed_settlement_queue_depth: operatorOnly(z.number().int().min(0)),
  })
  .strict()

/**
 * GET /v1/financial/health (spec: Resources, Financial health): settlement fields and the
 * treasury only for the operator key. Free, key required.
 */
export const financialHealth = defineOperation({
  id: 'financial_health',
  http: { method: 'GET', path: '/v1/financial/health' },
  summary: 'Revenue and settlement health',
  description:
    'Callers see the revenue attributed to their own key; the operator key also sees the treasury and the settlement ledger. Free; needs an API key.',
  input: FinancialHealthInput,
  output: FinancialHealthResult,
  price: null,
  ports: ['financial'],
  access: { sandbox: 'run' },
  run: async (_input, ctx) => {
    const caller = keyCallerOf(ctx)
    const deps = ctx.deps.financial
    if (!deps) throw new ServiceError('unavailable', 'financial figures are not available on this server')
    return readFinancialHealth(deps, caller)
  },
})
