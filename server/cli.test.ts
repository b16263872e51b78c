import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

/** The operator CLI works without the HTTP server, on the same database the server would use. */
describe('operator CLI', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  /** Runs the CLI as a separate process (asynchronously, so the test worker stays responsive). */
  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'server/cli.ts', ...args],
        { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000 },
        (_error, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }),
      )
    })

  it('creates a funded live key, credits it exactly, expires and revokes it', {
    timeout: 180_000,
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
    const key = JSON.parse(created.stdout) as {
      api_key: string
      key_id: string
      balance_micros: number
      tier: string
    }
    expect(key).toMatchObject({ tier: 'pro', balance_micros: 25_000_000 })
    expect(key.api_key).toMatch(/^svc_live_/)
    const credited = await cli('credit', '--key-id', key.key_id, '--amount-usd', '0.000001')
    expect(credited.status).toBe(0)
    expect(JSON.parse(credited.stdout)).toMatchObject({ balance_micros: 25_000_001 })
    const expired = await cli('expire-key', '--key-id', key.key_id, '--at', '2030-01-01T00:00:00Z')
    expect(expired.status).toBe(0)
    expect(JSON.parse(expired.stdout)).toMatchObject({ expires_at: '2030-01-01T00:00:00.000Z' })
    const revoked = await cli('revoke-key', '--key-id', key.key_id)
    expect(revoked.status).toBe(0)
    expect(JSON.parse(revoked.stdout)).toMatchObject({ status: 'revoked', balance_micros: 25_000_001 })
    const unknown = await cli('revoke-key', '--key-id', 'no-such-key')
    expect(unknown.status).toBe(1)
    expect(unknown.stderr).toContain('key-id')
  })

  it('refuses bad input naming the field, and an unknown command with the usage', {
    timeout: 60_000,
  }, async () => {
    const bad = await cli('create-key', '--email', 'not-an-email', '--tier', 'pro')
    expect(bad.status).toBe(1)
    expect(bad.stderr).toContain('email:')
    const unknown = await cli('delete-everything')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('usage:')
  })
})
