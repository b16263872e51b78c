import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../core/store/database.ts'
import { openTestDatabase } from '../test/support/database.ts'
import { runOperatorCli } from './operator-cli.ts'

/** The operator CLI works without the HTTP server, on the database the server would use. */
describe('operator CLI', () => {
  let database: Database
  beforeAll(async () => {
    database = await openTestDatabase('pglite')
  })
  afterAll(async () => {
    await database?.close()
  })

  /** Runs one command in-process on the shared database, as `npm run cli -- ...args` would. */
  async function cli(...args: string[]) {
    const out: string[] = []
    const err: string[] = []
    const status = await runOperatorCli(args, {
      // Each command closes what it opened; the test keeps its database across commands.
      openDatabase: async () => ({ ...database, close: async () => {} }),
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    })
    return { status, stdout: out.join('\n'), stderr: err.join('\n') }
  }

  it('creates a funded live key, credits it exactly, expires and revokes it', async () => {
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

  it('refuses bad input naming the field, and an unknown command with the usage', async () => {
    const bad = await cli('create-key', '--email', 'not-an-email', '--tier', 'pro')
    expect(bad.status).toBe(1)
    expect(bad.stderr).toContain('email:')
    const unknown = await cli('delete-everything')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('usage:')
  })
})
