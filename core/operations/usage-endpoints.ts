import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf } from './operation-context.ts'

export const UsageEndpointsInput = z.object({}).strict()

export const UsageEndpointsResult = z
  .record(z.string(), z.number().int().min(0))
  .describe('Calls of the calling key per endpoint, all time: `{"POST /v1/entity/check": 12, ...}`')

/** GET /v1/usage/endpoints (spec: an object of per-endpoint counts of the calling key). Free. */
export const usageEndpoints = defineOperation({
  id: 'usage_endpoints',
  http: { method: 'GET', path: '/v1/usage/endpoints' },
  title: 'Usage per endpoint',
  summary: "The calling key's calls per endpoint, all time",
  description:
    'An object of counts keyed `METHOD /path`, REST and MCP calls together, whatever their outcome. Free; needs an API key.',
  input: UsageEndpointsInput,
  output: UsageEndpointsResult,
  price: null,
  ports: ['usage'],
  access: { sandbox: 'run' },
  run: async (_input, ctx) => {
    const caller = keyCallerOf(ctx)
    const reports = ctx.deps.usage
    if (!reports) throw new ServiceError('unavailable', 'usage reports are not available')
    return reports.endpoints(caller.keyId)
  },
})
