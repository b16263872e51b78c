import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { createDatabase, rowsOf } from './database.ts'

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

describe('createDatabase on PGlite', () => {
  it('creates a new cluster (in a process of its own), migrated, and keeps what is written across a reopen', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'database-test-'))
    folders.push(folder)
    const dataDir = path.join(folder, 'data')
    const first = await createDatabase({ dataDir })
    try {
      expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true)
      const tables = rowsOf<{ name: string }>(
        await first.db.execute(
          sql`select table_name as name from information_schema.tables where table_name = 'sanctions_list_versions'`,
        ),
      )
      expect(tables).toEqual([{ name: 'sanctions_list_versions' }])
      await first.db.execute(sql`create table kept (value text)`)
      await first.db.execute(sql`insert into kept values ('written before the reopen')`)
    } finally {
      await first.close()
    }
    const second = await createDatabase({ dataDir })
    try {
      expect(rowsOf(await second.db.execute(sql`select value from kept`))).toEqual([
        { value: 'written before the reopen' },
      ])
    } finally {
      await second.close()
    }
  })
})
