import { execFile } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testPgliteDataDir } from '../test/support/database.ts'
import { tsEntry } from '../test/support/ts-entry.ts'

/**
 * The operator CLI as a process (`npm run cli`): the environment names the database, answers go to
 * stdout, refusals to stderr with the exit code. The commands themselves are specified in-process
 * (operator-cli.test.ts); this is the one spawned run that proves the entry point wires them up.
 */
describe('operator CLI process', () => {
  // A migrated data folder (a copy of the test template): what the CLI finds where a server ran.
  let folder: { dataDir: string; remove(): void }
  beforeAll(async () => {
    folder = await testPgliteDataDir('svc-cli-')
  })
  afterAll(() => folder?.remove())

  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        tsEntry('server/cli.ts', ...args),
        { env: { ...process.env, DATA_DIR: folder.dataDir }, encoding: 'utf8', timeout: 60_000 },
        (_error, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }),
      )
    })

  it('creates a key in the DATA_DIR database and exits 0; an unknown command exits 2 with the usage', {
    timeout: 120_000,
  }, async () => {
    const created = await cli(
      'create-key',
      '--email',
      'ops@example.com',
      '--tier',
      'pro',
      '--balance-usd',
      '25',
    )
    expect(created.status).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({ tier: 'pro', balance_micros: 25_000_000 })
    const unknown = await cli('delete-everything')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('usage:')
  })
})
