import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { inject } from 'vitest'
import { createDatabase, type Database } from '../../core/store/database.ts'
import { createScratchDatabase } from './postgres.ts'

export type DatabaseKind = 'pglite' | 'postgres'

/** Storage-touching suites run on both: PGlite (the default) and a real PostgreSQL. */
export const DATABASE_KINDS: readonly DatabaseKind[] = ['pglite', 'postgres']

let pgliteTemplate: Blob | undefined

/**
 * The migrated PGlite dump of this run (built by the global setup), read once per worker. Pass it
 * as `loadDataDir` to `createDatabase` to seed a new data folder.
 */
export function pgliteTemplateDump(): Blob {
  pgliteTemplate ??= new Blob([readFileSync(inject('pgliteTemplateFile'))])
  return pgliteTemplate
}

/**
 * A fresh, migrated, empty database of the given kind: a copy of the run's template (PGlite: loaded
 * from its dump; PostgreSQL: `CREATE DATABASE ... TEMPLATE`), never a cluster migrated again.
 */
export async function openTestDatabase(kind: DatabaseKind): Promise<Database> {
  if (kind === 'pglite') return createDatabase({ loadDataDir: pgliteTemplateDump() })
  return createDatabase({ url: await testPostgresUrl(), maxConnections: 20 })
}

/**
 * The URL of a fresh, migrated, empty PostgreSQL database (a copy of the template), for a second
 * connection or a child process. `prefix` names it in the server's logs.
 */
export async function testPostgresUrl(prefix = 't'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  return createScratchDatabase(inject('postgresUrl'), name, inject('postgresTemplate'))
}

/**
 * A fresh temp folder holding a migrated PGlite cluster (seeded from the template), for a child
 * process started with DATA_DIR, plus its removal. The folder is `<temp>/data`, so files a test
 * keeps beside it (a CA, logs) go in `<temp>`.
 */
export async function testPgliteDataDir(prefix = 'svc-'): Promise<{ dataDir: string; remove(): void }> {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix))
  const dataDir = path.join(root, 'data')
  const database = await createDatabase({ dataDir, loadDataDir: pgliteTemplateDump() })
  await database.close()
  return { dataDir, remove: () => rmSync(root, { recursive: true, force: true }) }
}
