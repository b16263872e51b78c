import type { TestProject } from 'vitest/node'
import { startTempPostgres, type TempPostgres } from './postgres.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string
  }
}

let server: TempPostgres | undefined

/** One throwaway PostgreSQL for the whole test run; each suite creates its own database on it. */
export async function setup(project: TestProject): Promise<void> {
  if (process.env.TEST_POSTGRES_URL) {
    project.provide('postgresUrl', process.env.TEST_POSTGRES_URL)
    return
  }
  server = await startTempPostgres()
  project.provide('postgresUrl', server.url)
}

export async function teardown(): Promise<void> {
  server?.stop()
}
