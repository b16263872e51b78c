import { z } from 'zod'
import type { SanctionsService } from './sanctions-service.ts'
import { ListKeySchema } from './types.ts'

export const ListHealthSchema = z
  .object({
    list_key: ListKeySchema,
    status: z
      .enum(['loaded', 'stale', 'loading', 'unavailable'])
      .describe(
        'loaded (and current); stale (loaded, but older than max_age_days since publication, or refreshes failing); loading (first read pending); unavailable (not configured, or its first read failed)',
      ),
    reason: z
      .string()
      .optional()
      .describe('Why the list is stale, loading or unavailable (absent when loaded)'),
    as_of: z
      .string()
      .optional()
      .describe('Publication date of the loaded version, else the day it was fetched'),
    publication_date: z
      .string()
      .nullable()
      .optional()
      .describe('Publication date of the loaded version (YYYY-MM-DD); null when the file gives none'),
    age_days: z.number().int().min(0).optional().describe('Whole days since as_of'),
    max_age_days: z
      .number()
      .int()
      .min(1)
      .describe('Age past which the list is stale (SANCTIONS_MAX_AGE_DAYS_*; docs/sanctions.md "Freshness")'),
    entries: z.number().int().min(0).optional().describe('Entries in the loaded version'),
  })
  .strict()

/** One sanctions list's freshness, as /health and the data inventory report it. */
export type ListHealth = z.infer<typeof ListHealthSchema>

/**
 * The lists as /health reports them (and the data inventory, from the same source): every list
 * with its publication date and age, `stale` past its threshold or while refreshes fail, and a
 * reason for every list that is not loaded.
 */
export function listHealth(service: Pick<SanctionsService, 'status'>): ListHealth[] {
  return service.status().map((status) => {
    const base = { list_key: status.list_key, max_age_days: status.max_age_days }
    if (status.loaded) {
      const loaded = {
        ...base,
        as_of: status.loaded.as_of,
        publication_date: status.loaded.publication_date,
        age_days: status.age_days ?? 0,
        entries: status.loaded.entry_count,
      }
      if (!status.stale) return { ...loaded, status: 'loaded' as const }
      return { ...loaded, status: 'stale' as const, reason: status.stale_reason ?? 'stale' }
    }
    if (status.state === 'not_configured') {
      return {
        ...base,
        status: 'unavailable' as const,
        reason:
          'no list source configured (off) and no stored copy: set the source, or run npm run lists:import -- <folder>',
      }
    }
    if (status.state === 'load_failed') {
      return {
        ...base,
        status: 'unavailable' as const,
        reason: `${status.last_error}; retried hourly, or load files with npm run lists:import -- <folder>`,
      }
    }
    return { ...base, status: 'loading' as const, reason: 'first download and parse in progress' }
  })
}
