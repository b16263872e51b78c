import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

/** The operator CLI works without the HTTP server, on the same database the server would use. */
describe('operator CLI', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'server/cli.ts', ...args], {
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    })

  it('creates a funded live key, then credits it exactly', () => {
    const created = cli('create-key', '--email', 'ops@example.com', '--tier', 'pro', '--balance-usd', '25')
    expect(created.status).toBe(0)
    const key = JSON.parse(created.stdout) as {
      api_key: string
      key_id: string
      balance_micros: number
      tier: string
    }
    expect(key).toMatchObject({ tier: 'pro', balance_micros: 25_000_000 })
    expect(key.api_key).toMatch(/^svc_live_/)
    const credited = cli('credit', '--key-id', key.key_id, '--amount-usd', '0.000001')
    expect(credited.status).toBe(0)
    expect(JSON.parse(credited.stdout)).toMatchObject({ balance_micros: 25_000_001 })
  })

  it('refuses bad input naming the field, and an unknown command with the usage', () => {
    const bad = cli('create-key', '--email', 'not-an-email', '--tier', 'pro')
    expect(bad.status).toBe(1)
    expect(bad.stderr).toContain('email:')
    const unknown = cli('delete-everything')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('usage:')
  })
})
