import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { AlertSchema, JurisdictionSchema, SeveritySchema } from '../monitoring/alert-schema.ts'
import type { MonitoringPort } from '../monitoring/monitoring-port.ts'
import { PRICES } from '../payments/pricing.ts'
import { NAME_SCREEN_LISTS, noCoverage, SanctionsCoverageSchema } from '../sanctions/coverage.ts'
import { defineOperation } from './define.ts'
import type { OperationContext } from './operation-context.ts'

/** Query integers: JSON numbers over MCP, strings in a query string over REST. */
const pageInteger = (min: number, max: number) => z.coerce.number().int().min(min).max(max)

export const ComplianceAlertsInput = z
  .object({
    jurisdiction: JurisdictionSchema.optional().describe('Only alerts of one list: us (OFAC SDN), eu, un'),
    severity: SeveritySchema.optional().describe('Only alerts of this severity'),
    limit: pageInteger(1, 200).optional().describe('Alerts per page, 1-200 (default 50)'),
    offset: pageInteger(0, 10_000_000).optional().describe('Alerts to skip (default 0)'),
  })
  .strict()

export const ComplianceAlertsResult = z
  .object({
    total: z.number().int().min(0).describe('Alerts matching the filters'),
    offset: z.number().int().min(0),
    limit: z.number().int().min(1),
    alerts: z
      .array(AlertSchema)
      .describe('Newest first: list changes everyone sees and changes touching this key'),
    coverage: SanctionsCoverageSchema.describe(
      'The lists monitored now (their changes raise alerts), with publication date and age, and the ones not monitored, with why: no alert from a list not monitored means nothing',
    ),
  })
  .strict()

/** The monitoring port, or 503 when this server runs without it. */
export function monitoringOf(ctx: OperationContext<'monitoring'>): MonitoringPort {
  const monitoring = ctx.deps.monitoring
  if (!monitoring)
    throw new ServiceError('unavailable', 'sanctions monitoring is not available on this server')
  return monitoring
}

/**
 * GET /v1/compliance/alerts (spec): the daily OFAC, EU and UN list changes plus
 * the changes that touch what the calling key checked or watches. Pro tier or higher (spec:
 * older tier rule); an x402 payer sees the list changes only.
 */
export const complianceAlerts = defineOperation({
  id: 'compliance_alerts',
  http: { method: 'GET', path: '/v1/compliance/alerts' },
  summary: 'Sanctions list changes (OFAC, EU, UN) and the ones touching what this key checked or watches',
  description:
    'Every added, removed or changed list entry is an alert (scope list); a change that touches a name, wallet or registration number this key checked or watches is an alert of scope key with match.basis, match.kind and match.score. Newest first. Keys need the pro tier or higher; x402 payers see the list alerts.',
  input: ComplianceAlertsInput,
  output: ComplianceAlertsResult,
  price: PRICES.compliance_alerts,
  essentials: {
    parts: [{ part: 'monitoring', when: 'always', needs: 'the sanctions monitor (built in at start-up)' }],
    check: (_input, deps) =>
      deps.monitoring
        ? []
        : [
            {
              part: 'monitoring',
              reason: 'not_configured',
              detail: 'sanctions monitoring is not available on this server',
              operator_action: 'start the service with its sanctions monitor',
            },
          ],
  },
  ports: ['monitoring', 'sanctionsLists'],
  access: { sandbox: 'refuse', minTier: 'pro' },
  run: async (input, ctx) => {
    const limit = input.limit ?? 50
    const offset = input.offset ?? 0
    const keyId = ctx.caller.kind === 'key' && ctx.caller.role === 'customer' ? ctx.caller.keyId : null
    const page = await monitoringOf(ctx).monitor.alerts({
      keyId,
      limit,
      offset,
      ...(input.jurisdiction ? { jurisdiction: input.jurisdiction } : {}),
      ...(input.severity ? { severity: input.severity } : {}),
    })
    const coverage =
      ctx.deps.sanctionsLists?.coverage(NAME_SCREEN_LISTS) ??
      noCoverage(NAME_SCREEN_LISTS, 'this server runs without sanctions lists')
    return { total: page.total, offset, limit, alerts: page.alerts, coverage }
  },
})
