import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../core/context.ts'
import type { Database } from '../core/store/database.ts'
import { createKboDatabaseStore } from '../core/store/kbo-database-store.ts'
import { openTestDatabase } from '../test/support/database.ts'
import { KBO_FULL_FIXTURE_DIR } from '../test/support/fakes/index.ts'
import { testConfig } from '../test/support/test-config.ts'
import { buildCompanySources, importKboIfNew } from './company-sources.ts'

describe('company sources from config', () => {
  let database: Database
  beforeAll(async () => {
    database = await openTestDatabase('pglite')
  })
  afterAll(async () => {
    await database?.close()
  })

  it('leaves KVK out without an API key and imports KBO_DATA_DIR into the database once', async () => {
    const config = testConfig({ KBO_DATA_DIR: KBO_FULL_FIXTURE_DIR })
    const logs: string[] = []
    const log = (_level: string, message: string) => {
      logs.push(message)
    }
    const sources = await buildCompanySources(config, systemClock, log, database.db)
    expect(sources.kvk).toBeUndefined()
    let result = await sources.kbo?.lookupEnterprise('0200.065.765')
    for (let i = 0; i < 100 && result?.status !== 'ok'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      result = await sources.kbo?.lookupEnterprise('0200.065.765')
    }
    expect(result).toMatchObject({
      status: 'ok',
      data: { found: true, name: 'Intergemeentelijke Vereniging Veneco' },
    })
    expect(logs).toContain('KBO open data imported')

    // A restart with the same extract does not import it again.
    const store = createKboDatabaseStore(database.db)
    expect(await importKboIfNew(KBO_FULL_FIXTURE_DIR, store, systemClock)).toBeNull()
  })
})
