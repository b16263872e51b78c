import { describe, it } from 'vitest'
import { createDatabase } from '../../core/store/database.ts'
import { testPgliteDataDir } from '../support/database.ts'
import {
  afterSuite,
  cleanUpAfterAll,
  killRepeatedlyUnderLoad,
  killUnderLoad,
} from '../support/key-charge-load.ts'

cleanUpAfterAll()

describe('key charges under faults on PGlite', { timeout: 180_000 }, () => {
  it('kill -9 three times under 48 connections on PGlite: never debited without an answer, per key; idempotent calls (REST, MCP) recovered', async () => {
    const { dataDir, remove } = await testPgliteDataDir('svc-keykill3-')
    afterSuite(remove)
    await killRepeatedlyUnderLoad({ DATA_DIR: dataDir }, () => createDatabase({ dataDir }), 'PGlite')
  })

  it('kill -9 under 1,000 concurrent calls on PGlite: debits = answers received x price', async () => {
    const { dataDir, remove } = await testPgliteDataDir('svc-keycrash-')
    afterSuite(remove)
    await killUnderLoad({ DATA_DIR: dataDir }, () => createDatabase({ dataDir }))
  })
})
