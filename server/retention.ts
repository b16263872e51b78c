import type { Clock } from '../core/context.ts'
import type { StoredCategoryNote } from '../core/discovery/index.ts'
import type { ServiceDeps } from '../core/operations/index.ts'
import {
  createRetentionJob,
  RETENTION_CATEGORIES,
  type RetentionJob,
  readDataInventory,
  resolveRetentionDays,
} from '../core/retention/index.ts'
import type { ListHealth } from '../core/sanctions/list-health.ts'
import type { Database } from '../core/store/database.ts'
import type { Config } from './config.ts'

type Log = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

export interface Retention {
  job: RetentionJob
  inventory: NonNullable<ServiceDeps['dataInventory']>
  /** The categories with their retention, for the privacy placeholder. */
  notes: StoredCategoryNote[]
}

/**
 * The retention job and the data inventory over the category register, with RETENTION_* config.
 * `lists` is the sanctions lists' freshness as /health reports it (the inventory's list category
 * carries it).
 */
export function buildRetention(
  config: Config,
  database: Database,
  clock: Clock,
  log: Log,
  lists?: () => ListHealth[],
): Retention {
  let days: Record<string, number>
  try {
    days = resolveRetentionDays(RETENTION_CATEGORIES, config.RETENTION_DAYS)
  } catch (error) {
    throw new Error(`invalid configuration:\n  RETENTION_DAYS: ${(error as Error).message}`)
  }
  const job = createRetentionJob({
    db: database.db,
    clock,
    categories: RETENTION_CATEGORIES,
    retentionDays: days,
    batchSize: config.RETENTION_BATCH_SIZE,
    intervalMs: config.RETENTION_INTERVAL_MINUTES * 60_000,
    log,
  })
  return {
    job,
    inventory: {
      read: (caller) =>
        readDataInventory(
          {
            db: database.db,
            clock,
            categories: RETENTION_CATEGORIES,
            retentionDays: job.retentionDays,
            nextRunAt: job.nextRunAt,
            ...(lists ? { lists } : {}),
          },
          caller,
        ),
    },
    notes: RETENTION_CATEGORIES.map((category) => ({
      category: category.category,
      description: category.description,
      retention_days: days[category.category] ?? category.defaultRetentionDays,
      legal_note: category.legalNote,
    })),
  }
}
