import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { ListHealthSchema } from '../sanctions/list-health.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf } from './operation-context.ts'

export const DataInventoryInput = z.object({}).strict()

export const DataInventoryItemSchema = z
  .object({
    category: z.string().describe('Stored data category (usage_logs, stored_checks, settlements, ...)'),
    description: z.string().describe('What a record holds'),
    record_count: z
      .number()
      .int()
      .min(0)
      .describe('Records held now (the calling key’s own, unless scope is service)'),
    retention_days: z.number().int().min(0).describe('Records older than this are deleted (RETENTION_DAYS)'),
    oldest_record: z.string().nullable().describe('Timestamp of the oldest record counted (null: none)'),
    next_cleanup: z.string().describe('When expired records are next deleted'),
    scope: z
      .enum(['caller', 'service'])
      .describe(
        'caller: counts of the calling key’s records; service: the whole service (operator key, or public data)',
      ),
    cleanup: z
      .enum(['retention_job', 'owner'])
      .describe(
        'retention_job: deleted by the retention job; owner: removed by the module that owns the data',
      ),
    legal_note: z.string().describe('Why the data is kept this long'),
    lists: z
      .array(ListHealthSchema)
      .optional()
      .describe(
        'Only on list_versions: each sanctions list in use with its publication date, age in days and stale flag (the same figures as /health sanctions_lists); a list not loaded says why',
      ),
  })
  .strict()

export const DataInventoryResult = z
  .object({ categories: z.array(DataInventoryItemSchema).describe('One item per stored data category') })
  .strict()

/**
 * GET /v1/data/inventory (spec: Usage, provider and data operations; GDPR Art. 30 register): one
 * item per stored category with record_count, retention_days, oldest_record and next_cleanup.
 * Any key may read it: customers see their own records' figures, the operator the whole service.
 * REST answers the bare array (spec); the MCP tool `{categories}`. Free.
 */
export const dataInventory = defineOperation({
  id: 'data_inventory',
  http: { method: 'GET', path: '/v1/data/inventory', bodyField: 'categories' },
  title: 'Data inventory',
  summary: 'What the service stores, how much, and for how long (GDPR Art. 30 register)',
  description:
    'One item per stored data category with record_count, retention_days, oldest_record and next_cleanup; the list_versions item also gives each sanctions list’s publication date, age and stale flag (as /health does). Customer keys see the figures of their own records (public sanctions list data: service-wide); the operator key sees the whole service. Free; needs an API key.',
  input: DataInventoryInput,
  output: DataInventoryResult,
  price: null,
  ports: ['dataInventory'],
  access: { sandbox: 'run' },
  run: async (_input, ctx) => {
    const caller = keyCallerOf(ctx)
    const inventory = ctx.deps.dataInventory
    if (!inventory)
      throw new ServiceError('unavailable', 'the data inventory is not available on this server')
    return { categories: await inventory.read(caller) }
  },
})
