/**
 * The database a benchmark runs on, chosen with `--db pglite|postgres` (default pglite): PGlite in
 * a fresh temp folder, or PostgreSQL at DATABASE_URL, else a throwaway server started for the run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createDatabase, type Database } from '../../core/store/database.ts'
import { startTempPostgres } from '../../test/support/postgres.ts'

export interface BenchDatabase {
  kind: 'pglite' | 'postgres'
  /** The run's temp folder (PGlite's data in `pglite/`, anything else the run writes). */
  dir: string
  /** PGlite's data folder (unused on PostgreSQL). */
  dataDir: string
  /** PostgreSQL's URL; undefined on PGlite. */
  url: string | undefined
  /** Opens (or reopens) the database. */
  open(): Promise<Database>
  /** Stops the throwaway server and removes the temp folder. */
  cleanup(): void
}

/** Reads `--db` from the command line and prepares that database; `prefix` names the temp folder. */
export async function benchDatabase(prefix: string): Promise<BenchDatabase> {
  const dbIndex = process.argv.indexOf('--db')
  const kind = dbIndex >= 0 ? process.argv[dbIndex + 1] : 'pglite'
  if (kind !== 'pglite' && kind !== 'postgres') throw new Error('--db pglite|postgres')
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  const dataDir = path.join(dir, 'pglite')
  const postgres = kind === 'postgres' && !process.env.DATABASE_URL ? await startTempPostgres() : undefined
  const url = kind === 'postgres' ? (process.env.DATABASE_URL ?? postgres!.url) : undefined
  return {
    kind,
    dir,
    dataDir,
    url,
    open: () => createDatabase(url ? { url } : { dataDir }),
    cleanup: () => {
      postgres?.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
