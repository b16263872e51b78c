import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { USAGE_PERIODS } from '../usage/usage-reports.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf } from './operation-context.ts'

export const UsageSummaryInput = z
  .object({
    period: z
      .enum(USAGE_PERIODS as ['day', 'week', 'month'])
      .optional()
      .describe(
        'day (default): since 00:00 UTC today; week: since Monday 00:00 UTC; month: since the 1st, 00:00 UTC (when the monthly cap resets)',
      ),
  })
  .strict()

const Counts = z.record(z.string(), z.number().int().min(0))

export const UsageSummaryResult = z
  .object({
    period: z.enum(USAGE_PERIODS as ['day', 'week', 'month']).describe('The period reported'),
    from: z.string().describe('Start of the period (ISO timestamp, UTC)'),
    to: z.string().describe('End of the period: now (ISO timestamp)'),
    total_calls: z
      .number()
      .int()
      .min(0)
      .describe('Calls of this key in the period, REST and MCP, whatever their outcome'),
    total_cost_usd: z
      .number()
      .min(0)
      .describe('Debited from the balance (or paid with x402 by this key) in the period, USD'),
    total_cost_micros: z.number().int().min(0).describe('The same in micro-USDC (exact)'),
    avg_latency_ms: z.number().min(0).describe('Mean time the service took per call, milliseconds'),
    endpoint_counts: Counts.describe('Calls per endpoint, named `METHOD /path` (`POST /v1/entity/check`)'),
    calls_by_status: Counts.describe(
      'Calls per HTTP status (`200`, `402`, `422`, `429`, ...); MCP calls by the status REST would have answered; `499`: answers the client did not receive whole (the connection closed first), not charged to the key',
    ),
  })
  .strict()

/** GET /v1/usage/summary (spec: Usage, provider and data operations). Free; the calling key only. */
export const usageSummary = defineOperation({
  id: 'usage_summary',
  http: { method: 'GET', path: '/v1/usage/summary' },
  title: 'Usage summary',
  summary: "The calling key's usage in the current day, week or month",
  description:
    'Calls, cost, mean latency, calls per endpoint and per HTTP status, counted in UTC calendar periods from an hourly rollup (answers in milliseconds on any history). Free; needs an API key.',
  input: UsageSummaryInput,
  output: UsageSummaryResult,
  price: null,
  ports: ['usage'],
  access: { sandbox: 'run' },
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    const reports = ctx.deps.usage
    if (!reports) throw new ServiceError('unavailable', 'usage reports are not available')
    return reports.summary(caller.keyId, input.period ?? 'day', ctx.clock.now())
  },
})
