import { sql } from 'drizzle-orm'
import type { Clock, KeyCaller } from '../context.ts'
import type { ListHealth } from '../sanctions/list-health.ts'
import { type Db, rowsOf } from '../store/database.ts'
import type { RetentionCategory } from './categories.ts'

/** One item of GET /v1/data/inventory (spec: Data inventory item, plus the register's why and scope). */
export interface DataInventoryItem {
  category: string
  description: string
  record_count: number
  retention_days: number
  oldest_record: string | null
  next_cleanup: string
  /** `caller`: counts of the calling key's rows; `service`: the whole service (operator, or public data). */
  scope: 'caller' | 'service'
  cleanup: 'retention_job' | 'owner'
  legal_note: string
  /**
   * On the sanctions list versions category: each list's publication date, age and stale flag,
   * from the same source as /health.
   */
  lists?: ListHealth[]
}

export interface DataInventoryDeps {
  db: Db
  clock: Clock
  categories: readonly RetentionCategory[]
  retentionDays(category: string): number
  /** The retention job's next pass. */
  nextRunAt(): Date
  /** The sanctions lists' freshness as /health reports it; absent on a server without lists. */
  lists?: () => ListHealth[]
}

/**
 * The GDPR Art. 30 register with live figures. The operator sees the whole service; a customer
 * key sees the counts and oldest timestamps of its own rows (tenant isolation) and the
 * service-wide figures of public data (the sanctions lists); a category holding no row of any key
 * counts 0 for it.
 */
export async function readDataInventory(
  deps: DataInventoryDeps,
  caller: KeyCaller,
): Promise<DataInventoryItem[]> {
  const items: DataInventoryItem[] = []
  for (const category of deps.categories) {
    const serviceWide = caller.role === 'admin' || category.publicData === true
    const table = sql.identifier(category.table)
    const column = sql.identifier(category.timestampColumn)
    let count = 0
    let oldest: string | null = null
    if (serviceWide || category.ownerColumn) {
      const where = serviceWide
        ? sql``
        : sql` where ${sql.identifier(category.ownerColumn ?? '')} = ${caller.keyId}`
      const row = rowsOf<{ n: unknown; oldest: unknown }>(
        await deps.db.execute(sql`select count(*) as n, min(${column}) as oldest from ${table}${where}`),
      )[0]
      count = Number(row?.n ?? 0)
      oldest = row?.oldest ? new Date(row.oldest as string).toISOString() : null
    }
    const cleanup = category.cleanup ?? 'retention_job'
    const nextCleanup =
      cleanup === 'owner'
        ? new Date(deps.clock.now().getTime() + (category.ownerCleanupEveryMs ?? 60_000))
        : deps.nextRunAt()
    items.push({
      category: category.category,
      description: category.description,
      record_count: count,
      retention_days: deps.retentionDays(category.category),
      oldest_record: oldest,
      next_cleanup: nextCleanup.toISOString(),
      scope: serviceWide ? 'service' : 'caller',
      cleanup,
      legal_note: category.legalNote,
      ...(category.sanctionsLists && deps.lists ? { lists: deps.lists() } : {}),
    })
  }
  return items
}
