import type { TestProject } from 'vitest/node'
import { buildPgliteTemplate, buildPostgresTemplate } from './database-templates.ts'
import { startTempPostgres, type TempPostgres } from './postgres.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway PostgreSQL of this run (or TEST_POSTGRES_URL). */
    postgresUrl: string
    /** A migrated database on it that test databases are copied from. */
    postgresTemplate: string
    /** A dump of a migrated PGlite cluster that test databases are loaded from. */
    pgliteTemplateFile: string
  }
}

let server: TempPostgres | undefined

/**
 * Once per test run: one throwaway PostgreSQL (each suite creates its own databases on it) and one
 * migrated template per database kind, so a suite's fresh database is a copy, never a new
 * cluster migrated again (test/support/database.ts).
 */
export async function setup(project: TestProject): Promise<void> {
  const pglite = buildPgliteTemplate()
  server = process.env.TEST_POSTGRES_URL ? undefined : await startTempPostgres()
  const postgresUrl = process.env.TEST_POSTGRES_URL ?? server!.url
  project.provide('postgresUrl', postgresUrl)
  project.provide('postgresTemplate', await buildPostgresTemplate(postgresUrl))
  project.provide('pgliteTemplateFile', await pglite)
}

export async function teardown(): Promise<void> {
  server?.stop()
}
