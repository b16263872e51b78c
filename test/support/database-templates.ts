import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import { createDatabase } from '../../core/store/database.ts'

/**
 * One migrated database per test run, copied for every test that needs a fresh one: initdb and
 * the migrations are most of what opening a database costs (PGlite: seconds of WebAssembly per
 * cluster). Built by the global setup (test/support/global-setup.ts); opened by
 * test/support/database.ts.
 */

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/store/migrations')
const CACHE_DIR = path.join(os.tmpdir(), 'validation-service-test-databases')

/** Hash of every migration file and the PGlite version: a template is reused only while both are unchanged. */
async function schemaKey(): Promise<string> {
  const hash = createHash('sha256')
  const pgliteEntry = createRequire(import.meta.url).resolve('@electric-sql/pglite')
  const pglite = JSON.parse(await readFile(path.join(pgliteEntry, '../../package.json'), 'utf8')) as {
    version: string
  }
  hash.update(`pglite ${pglite.version}\n`)
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) await walk(full)
      else hash.update(`${path.relative(MIGRATIONS, full)}\n`).update(await readFile(full))
    }
  }
  await walk(MIGRATIONS)
  return hash.digest('hex').slice(0, 16)
}

/**
 * A dump (`dumpDataDir`, uncompressed tar) of a migrated, empty PGlite cluster, cached in the OS
 * temp folder under the schema key (never committed; a changed migration makes a new one).
 * Returns the file's path.
 */
export async function buildPgliteTemplate(): Promise<string> {
  const file = path.join(CACHE_DIR, `pglite-${await schemaKey()}.tar`)
  if (await stat(file).catch(() => undefined)) return file
  const database = await createDatabase()
  try {
    const client = (database.db as unknown as { $client: PGlite }).$client
    const dump = await client.dumpDataDir('none')
    await mkdir(CACHE_DIR, { recursive: true })
    const partial = `${file}.${process.pid}.tmp`
    await writeFile(partial, new Uint8Array(await dump.arrayBuffer()))
    await rename(partial, file)
  } finally {
    await database.close()
  }
  return file
}

/**
 * A migrated, empty database on the PostgreSQL server, named after the schema key, that
 * `CREATE DATABASE ... TEMPLATE` copies. Nobody connects to it after this (PostgreSQL refuses to
 * copy a database with open sessions). Returns its name.
 */
export async function buildPostgresTemplate(serverUrl: string): Promise<string> {
  const name = `svc_template_${await schemaKey()}`
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  try {
    const [existing] = await admin`select 1 as found from pg_database where datname = ${name}`
    if (existing) return name
    // Built under another name and renamed, so a half-migrated template is never copied.
    const building = `${name}_${process.pid}`
    await admin.unsafe(`create database "${building}"`)
    const url = new URL(serverUrl)
    url.pathname = `/${building}`
    const database = await createDatabase({ url: url.toString(), maxConnections: 1 })
    await database.close()
    try {
      await admin.unsafe(`alter database "${building}" rename to "${name}"`)
    } catch (error) {
      // Another run built it meanwhile (42P04 duplicate_database): use theirs.
      if ((error as { code?: string }).code !== '42P04') throw error
      await admin.unsafe(`drop database "${building}"`)
    }
    return name
  } finally {
    await admin.end()
  }
}
