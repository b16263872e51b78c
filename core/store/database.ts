import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { fillPlaceholders, sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { type DataDirLock, lockDataDir } from './data-dir-lock.ts'
import { createPglitePrepared } from './pglite-prepared.ts'
import * as schema from './schema.ts'

export type Schema = typeof schema
/** The drizzle database, whichever driver is underneath. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>

/**
 * A transaction handle: what a module that owns a table accepts when its write must commit
 * together with another module's (e.g. a key credit with its settled ledger row).
 */
export type DbTransaction = Parameters<Parameters<Db['transaction']>[0]>[0]

/** Runs a raw statement (`$n` parameters) as a prepared statement and returns its rows. */
export type PreparedRunner = (text: string, params: readonly unknown[]) => Promise<Record<string, unknown>[]>

/**
 * Where a database handle keeps its prepared-statement runner (Database.executePrepared), so a
 * store given only the drizzle handle can run its hot statements prepared (executePrepared below).
 */
export const preparedRunner: unique symbol = Symbol('preparedRunner')

/** The drizzle handle with its prepared-statement runner attached (createDatabase). */
function withPreparedRunner(db: Db, run: PreparedRunner): Db {
  Object.defineProperty(db, preparedRunner, { value: run, configurable: true, writable: true })
  return db
}

/**
 * Runs a hot raw statement on `db` as a prepared statement (Database.executePrepared): a statement
 * whose text does not depend on how many rows it carries (arrays bound with `unnest`, `= any($n)`)
 * is parsed and planned once per PostgreSQL connection instead of on every call, and skips the
 * round trip postgres.js makes to describe an unnamed statement's parameters.
 */
export function executePrepared(
  db: Db,
  text: string,
  params: readonly unknown[],
): Promise<Record<string, unknown>[]> {
  const run = (db as Db & { [preparedRunner]?: PreparedRunner })[preparedRunner]
  if (!run) throw new Error('executePrepared: the database handle was not opened by createDatabase')
  return run(text, params)
}

/**
 * A drizzle statement with `sql.placeholder` values, rendered once and run through
 * executePrepared with the values filled in as drizzle fills them (each column's driver mapping):
 * prepared on PGlite too, where drizzle's own `.prepare()` parses the statement on every call.
 * Returns the statement's raw rows (column names as the database returns them).
 */
export function preparedStatement(
  db: Db,
  query: { toSQL(): { sql: string; params: unknown[] } },
): (values: Record<string, unknown>) => Promise<Record<string, unknown>[]> {
  const { sql: text, params } = query.toSQL()
  return (values) => executePrepared(db, text, fillPlaceholders(params, values))
}

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  /** True when a trivial query answers. */
  ping(): Promise<boolean>
  /**
   * Marks this process alive for as long as it runs. PostgreSQL: a session advisory lock held on
   * a connection of its own, released by the server the moment the process dies. PGlite: nothing
   * to do, since an embedded database has one process.
   */
  holdLiveness(instanceId: string): Promise<void>
  /** Whether another process that called holdLiveness(instanceId) still runs. */
  isAlive(instanceId: string): Promise<boolean>
  /**
   * Runs a hot raw statement (`$n` parameters) as a named prepared statement, parsed and planned
   * once (PostgreSQL: per connection; PGlite: core/store/pglite-prepared.ts), which drizzle's
   * `db.execute` does not do. Returns its rows.
   */
  executePrepared(text: string, params: readonly unknown[]): Promise<Record<string, unknown>[]>
  close(): Promise<void>
}

export interface DatabaseOptions {
  /** postgres://... switches to PostgreSQL through postgres.js. */
  url?: string
  /**
   * Folder for PGlite's files; omitted means in memory (tests). The folder is claimed for this
   * process while the database is open (`owner.lock`, see data-dir-lock.ts): a folder another
   * process has open is refused with DataDirInUseError before PGlite touches it.
   */
  dataDir?: string
  /**
   * The claim on `dataDir` an entry point already took (claimDataDirFromEnv, before loading the
   * rest of the program); the database adopts it and releases it on close.
   */
  dataDirLock?: DataDirLock
  /**
   * PGlite: start from this dump of a data folder (`dumpDataDir`) instead of an empty cluster, so a
   * test database is a copy of one migrated template rather than a new cluster migrated again
   * (initdb and the migrations are most of the cost of opening one). Migrations still run; on a
   * migrated dump they have nothing to do.
   */
  loadDataDir?: Blob
  /** Pool size for PostgreSQL. */
  maxConnections?: number
}

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

/** Advisory lock id that serialises migrations when several processes share one PostgreSQL. */
const MIGRATION_LOCK = 0x5eed_0001

/**
 * Opens the database and applies the committed migrations.
 * PGlite is the embedded default (DESIGN: Persistence); a `postgres://` URL selects PostgreSQL.
 */
export async function createDatabase(options: DatabaseOptions = {}): Promise<Database> {
  if (options.url) return openPostgres(options.url, options.maxConnections ?? 10)
  if (!options.dataDir) return openPglite(undefined, options.loadDataDir)
  mkdirSync(options.dataDir, { recursive: true })
  const given = options.dataDirLock
  const lock = given && given.dir === realpathSync(options.dataDir) ? given : lockDataDir(options.dataDir)
  try {
    const database = await openPglite(options.dataDir, options.loadDataDir)
    return {
      ...database,
      close: async () => {
        try {
          await database.close()
        } finally {
          lock.release()
        }
      },
    }
  } catch (error) {
    lock.release()
    throw error
  }
}

/**
 * PGlite runs PostgreSQL inside this process's WebAssembly memory, which grows to hold its buffer
 * cache and never shrinks: PostgreSQL's default 128 MB of shared buffers costs the process about
 * 145 MB more resident memory than 16 MB does. But a page not in the cache is a read through
 * PGlite's file system layer, on the CPU of this process: with 16 MB a paid screen (reservation,
 * usage row, capture, audit row with its indexes) spent about 12% more CPU than with 48 MB
 * (bench:hot-path, service CPU per request 5.1 against 4.5 ms; 128 MB: 4.3 ms). 48 MB holds the
 * hot tables' and indexes' pages for at most 32 MB more than 16 MB.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=48MB']

/**
 * Creates a PGlite cluster in `dataDir` and applies the migrations, then closes it. The service
 * runs this in a process of its own (create-pglite-cluster.ts) on a first start: see openPglite.
 */
export async function createPgliteCluster(dataDir: string): Promise<void> {
  const client = new PGlite({ dataDir, startParams: PGLITE_START_PARAMS })
  try {
    await migratePglite(drizzlePglite({ client }), { migrationsFolder })
  } finally {
    await client.close()
  }
}

const clusterCreator = fileURLToPath(new URL('./create-pglite-cluster.ts', import.meta.url))

/**
 * This process's Node flags (V8 settings, loaders), without those that would make the child run
 * something else (an --eval or --print script), wait for a debugger, watch files or run tests.
 */
function childExecArgv(): string[] {
  const kept: string[] = []
  const args = process.execArgv
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '-e' || arg === '--eval' || arg === '-p' || arg === '--print') {
      i++
      continue
    }
    if (/^--(?:eval|print|inspect|debug|watch|test)(?:[-=]|$)/.test(arg)) continue
    kept.push(arg)
  }
  return kept
}

/**
 * Runs createPgliteCluster in a child process (same Node, same flags and environment) and waits
 * for it. Creating a cluster (initdb, then the migrations) takes PGlite's WebAssembly memory to
 * about twice what a running database needs, and leaves the allocator of the process that did it
 * holding about 60 MB it never returns, with a peak over 1 GB: in a process that exits, none of
 * that stays with the service.
 */
async function createClusterApart(dataDir: string): Promise<void> {
  const child = spawn(process.execPath, [...childExecArgv(), clusterCreator, dataDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null]
  if (code !== 0) {
    throw new Error(
      `creating the database in ${dataDir} failed (${signal ? `signal ${signal}` : `exit code ${code}`}): ${stderr.trim() || 'no output'}`,
    )
  }
}

async function openPglite(dataDir: string | undefined, loadDataDir: Blob | undefined): Promise<Database> {
  const fresh = dataDir !== undefined && !existsSync(path.join(dataDir, 'PG_VERSION'))
  // A dump only seeds a database that has no cluster yet.
  const template = dataDir === undefined || fresh ? loadDataDir : undefined
  if (fresh && dataDir && !template) await createClusterApart(dataDir)
  const client = new PGlite({ dataDir, loadDataDir: template, startParams: PGLITE_START_PARAMS })
  // Nothing to do on a cluster created above; the pending migrations of an existing one.
  await migratePglite(drizzlePglite({ client }), { migrationsFolder })
  const executePrepared: PreparedRunner = createPglitePrepared(client)
  const db = withPreparedRunner(drizzlePglite({ client, schema }) as unknown as Db, executePrepared)
  return {
    db,
    kind: 'pglite',
    ping: () => pingDb(db),
    holdLiveness: async () => {},
    // One process per embedded database: any other instance id belongs to a process that is gone.
    isAlive: async () => false,
    executePrepared,
    close: () => client.close(),
  }
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const client = postgres(url, { max, onnotice: () => {} })
  const migrationClient = postgres(url, { max: 1, onnotice: () => {} })
  try {
    await migrationClient`select pg_advisory_lock(${MIGRATION_LOCK})`
    await migratePostgres(drizzlePostgres({ client: migrationClient }), { migrationsFolder })
    await migrationClient`select pg_advisory_unlock(${MIGRATION_LOCK})`
  } finally {
    await migrationClient.end()
  }
  const executePrepared: PreparedRunner = async (text, params) => [
    ...(await client.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true })),
  ]
  const db = withPreparedRunner(drizzlePostgres({ client, schema }) as unknown as Db, executePrepared)
  let livenessClient: postgres.Sql | undefined
  const lockedBy = new Map<string, unknown>()
  return {
    db,
    kind: 'postgres',
    ping: () => pingDb(db),
    async holdLiveness(instanceId) {
      // Never recycled (postgres.js closes connections after 30-60 min by default, which would
      // drop the lock and make this process look dead to the others).
      livenessClient ??= postgres(url, { max: 1, idle_timeout: 0, max_lifetime: null, onnotice: () => {} })
      // Called again by the payment worker: a new backend (PostgreSQL restarted, connection lost)
      // lost the session lock, so take it again; the same backend already holds it (locks stack).
      const [session] = await livenessClient`select pg_backend_pid() as pid`
      if (lockedBy.get(instanceId) === session?.pid) return
      // Try, never wait: a half-dead old backend may still hold it; the next tick tries again.
      const [row] =
        await livenessClient`select pg_try_advisory_lock(hashtextextended(${instanceId}, 0)) as locked`
      if (row?.locked) lockedBy.set(instanceId, session?.pid)
    },
    executePrepared,
    async isAlive(instanceId) {
      const reserved = await client.reserve()
      try {
        const [row] = await reserved`select pg_try_advisory_lock(hashtextextended(${instanceId}, 0)) as free`
        if (!row?.free) return true
        await reserved`select pg_advisory_unlock(hashtextextended(${instanceId}, 0))`
        return false
      } finally {
        reserved.release()
      }
    },
    close: async () => {
      await livenessClient?.end({ timeout: 5 })
      await client.end({ timeout: 5 })
    },
  }
}

/** The rows of a raw `db.execute` result, whichever driver ran it (PGlite: `{rows}`, postgres.js: an array). */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return ((result as { rows?: T[] }).rows ?? []) as T[]
}

async function pingDb(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`)
    return true
  } catch {
    return false
  }
}

/** Codes of a database that cannot be reached right now (node errno, postgres.js, SQLSTATE). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up or shutting down)
  '53300', // too_many_connections
])

/**
 * Whether `error` (or what it wraps: drizzle puts the driver's error in `cause`) says the database
 * is unreachable, as opposed to a query it refused. Callers answer 503 with Retry-After then.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== 'object') return false
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true
    if (current instanceof AggregateError && current.errors.some((inner) => isDatabaseUnavailable(inner))) {
      return true
    }
    current = (current as { cause?: unknown }).cause
  }
  return false
}
