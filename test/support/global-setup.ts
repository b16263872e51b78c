import { readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { buildPgliteTemplate, buildPostgresTemplate } from './database-templates.ts'
import { buildEntryBundles } from './entry-bundles.ts'
import { startTempPostgres, type TempPostgres } from './postgres.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway PostgreSQL of this run (or TEST_POSTGRES_URL). */
    postgresUrl: string
    /** A migrated database on it that test databases are copied from. */
    postgresTemplate: string
    /** A dump of a migrated PGlite cluster that test databases are loaded from. */
    pgliteTemplateFile: string
    /** The folder holding this run's bundles of the entry points tests start as processes. */
    entryBundles: string
  }
}

let server: TempPostgres | undefined
/** One folder per run: runs of other checkouts may share this node_modules through a link. */
const bundles = fileURLToPath(
  new URL(`../../node_modules/.cache/test-entry-bundles/${process.pid}`, import.meta.url),
)

/**
 * Once per test run: one throwaway PostgreSQL (each suite creates its own databases on it) and one
 * migrated template per database kind, so a suite's fresh database is a copy, never a new
 * cluster migrated again (test/support/database.ts); and the bundles of the entry points tests
 * start as child processes (test/support/entry-bundles.ts).
 */
export async function setup(project: TestProject): Promise<void> {
  await removeBundlesOfEndedRuns()
  const pglite = buildPgliteTemplate()
  const built = buildEntryBundles(bundles)
  server = process.env.TEST_POSTGRES_URL ? undefined : await startTempPostgres()
  const postgresUrl = process.env.TEST_POSTGRES_URL ?? server!.url
  project.provide('postgresUrl', postgresUrl)
  project.provide('postgresTemplate', await buildPostgresTemplate(postgresUrl))
  project.provide('pgliteTemplateFile', await pglite)
  await built
  project.provide('entryBundles', bundles)
}

/** A run that crashed before its teardown leaves its folder (about 10 MB): gone once its process is. */
async function removeBundlesOfEndedRuns(): Promise<void> {
  const parent = path.dirname(bundles)
  const names = await readdir(parent).catch(() => [] as string[])
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid === process.pid || running(pid)) continue
    await rm(path.join(parent, name), { recursive: true, force: true })
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export async function teardown(): Promise<void> {
  server?.stop()
  await rm(bundles, { recursive: true, force: true })
}
