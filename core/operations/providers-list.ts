import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { defineOperation } from './define.ts'

export const ProvidersListInput = z.object({}).strict()

export const ProviderItemSchema = z
  .object({
    provider_id: z.uuid().describe('Stable UUID of the provider (UUID v5 of its key)'),
    key: z.string().describe('Short name, as sources are named in check results (kvk, vies, ofac_sdn, ...)'),
    name: z.string(),
    kind: z.enum([
      'register',
      'tax',
      'sanctions_list',
      'pep_list',
      'insolvency_register',
      'news',
      'credit',
      'domain',
      'chain',
      'payment',
    ]),
    endpoint_url: z.string().describe('Where the service reaches it (credentials and query strings removed)'),
    supported_checks: z.array(z.string()).describe('Operations (and payment jobs) that read from it'),
    registered_at: z
      .string()
      .nullable()
      .describe('When the provider was first configured in this database (null: never configured here)'),
    status: z
      .enum(['active', 'degraded', 'down', 'not_configured'])
      .describe(
        'From the measured calls: active: its recent calls answered (or none was made yet); degraded: circuit half-open, 20% or more of recent calls failing, its latest call failed, or a stale or loading list; down: circuit open, every recent call failing, or a list that could not be loaded; not_configured: not used by this deployment',
      ),
    status_reason: z
      .string()
      .optional()
      .describe('Why it is not active, with the latest error (circuit_open: ..., stale: ..., ...)'),
    health: z
      .object({
        circuit_state: z
          .enum(['closed', 'open', 'half_open'])
          .nullable()
          .describe('Its circuit breaker (null for the sanctions lists, which have none)'),
        last_success_at: z
          .string()
          .nullable()
          .describe('Last call that answered (a list: last confirmed current)'),
        last_error: z
          .object({ at: z.string(), reason: z.string() })
          .strict()
          .nullable()
          .describe('Last call that failed, when and why'),
        recent_calls: z.number().int().min(0).describe('Calls within the window (at most the last 100)'),
        recent_error_rate: z
          .number()
          .min(0)
          .max(1)
          .nullable()
          .describe('Share of those that failed (null: none)'),
        window_minutes: z.number().int().min(0).describe('How far back recent_calls counts'),
      })
      .strict()
      .optional()
      .describe('What the service measured of its calls to the provider'),
    trust_level: z
      .enum(['verified', 'protocol', 'operator'])
      .describe(
        'verified: the official authority for the data; protocol: checked by its protocol (DNS, TLS, chain); operator: chosen by the operator',
      ),
  })
  .strict()

export const ProvidersListResult = z
  .object({ providers: z.array(ProviderItemSchema).describe('Every upstream provider') })
  .strict()

/**
 * GET /v1/providers (spec: Usage, provider and data operations): the upstream providers with their
 * live status from their circuit breakers and list freshness. REST answers with the bare array
 * (spec); the MCP tool with `{providers}`. Free, key required.
 */
export const providersList = defineOperation({
  id: 'providers_list',
  http: { method: 'GET', path: '/v1/providers', bodyField: 'providers' },
  title: 'Providers',
  summary: 'The upstream providers the checks read from, with their live status',
  description:
    'Registers, VIES, domain sources, sanctions lists, chain node and payment facilitator, each with a stable UUID, endpoint, the checks that use it, when it was first configured here, its status measured from its recent calls (last success, last error, error rate, circuit) or list freshness, and trust level. Free; needs an API key.',
  input: ProvidersListInput,
  output: ProvidersListResult,
  price: null,
  ports: ['providers'],
  access: { sandbox: 'run' },
  run: async (_input, ctx) => {
    const directory = ctx.deps.providers
    if (!directory) throw new ServiceError('unavailable', 'the provider list is not available on this server')
    return { providers: await directory.list() }
  },
})
