import type { Db } from '../store/database.ts'
import { providerRegistrations } from '../store/schema.ts'
import type { ProviderRegistrations } from './provider-directory.ts'

/**
 * `registered_at` of GET /v1/providers, stored: the first time each provider was configured in
 * this database. A row is inserted once and never updated, so the date survives restarts and is
 * the same for every process on the database.
 */
export function createProviderRegistrations(db: Db): ProviderRegistrations {
  return {
    async record(keys, at) {
      if (keys.length === 0) return
      await db
        .insert(providerRegistrations)
        .values(keys.map((key) => ({ key, firstConfiguredAt: at })))
        .onConflictDoNothing()
    },
    async all() {
      const rows = await db.select().from(providerRegistrations)
      return new Map(rows.map((row) => [row.key, row.firstConfiguredAt]))
    },
  }
}
