import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { createDatabase, type Database } from '../../core/store/database.ts'
import { createScratchDatabase } from './postgres.ts'

export type DatabaseKind = 'pglite' | 'postgres'

/** Storage-touching suites run on both (issue: PGlite and a real PostgreSQL). */
export const DATABASE_KINDS: readonly DatabaseKind[] = ['pglite', 'postgres']

/** A fresh, migrated, empty database of the given kind. */
export async function openTestDatabase(kind: DatabaseKind): Promise<Database> {
  if (kind === 'pglite') return createDatabase()
  const name = `t_${randomBytes(6).toString('hex')}`
  const url = await createScratchDatabase(inject('postgresUrl'), name)
  return createDatabase({ url, maxConnections: 20 })
}
