import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { defineOperation } from './define.ts'

export const ProvidersListInput = z.object({}).strict()

export const ProviderItemSchema = z
  .object({
    provider_id: z.uuid().describe('Stable UUID of the provider (UUID v5 of its key)'),
    key: z.string().describe('Short name, as sources are named in check results (kvk, vies, ofac_sdn, ...)'),
    name: z.string(),
    kind: z.enum(['register', 'tax', 'sanctions_list', 'domain', 'chain', 'payment']),
    endpoint_url: z.string().describe('Where the service reaches it (credentials and query strings removed)'),
    supported_checks: z.array(z.string()).describe('Operations (and payment jobs) that read from it'),
    registered_at: z.string().describe('When the provider was added to the service'),
    status: z
      .enum(['active', 'degraded', 'unavailable', 'not_configured'])
      .describe(
        'active: answering; degraded: trial calls after failures (circuit half-open) or a stale list; unavailable: circuit open or list never loaded; not_configured: not used by this deployment',
      ),
    status_reason: z
      .string()
      .optional()
      .describe('Why it is not active (circuit_open, stale, not_loaded, ...)'),
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
    'Registers, VIES, domain sources, sanctions lists, chain node and payment facilitator, each with a stable UUID, endpoint, the checks that use it, status (from its circuit breaker or list freshness) and trust level. Free; needs an API key.',
  input: ProvidersListInput,
  output: ProvidersListResult,
  price: null,
  access: { sandbox: 'run' },
  run: async (_input, ctx) => {
    const directory = ctx.deps.providers
    if (!directory) throw new ServiceError('unavailable', 'the provider list is not available on this server')
    return { providers: await directory.list() }
  },
})
