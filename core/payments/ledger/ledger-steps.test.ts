import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../../test/support/database.ts'
import { type Database, executePrepared } from '../../store/database.ts'
import { groupCommitOf } from '../../store/group-commit.ts'
import { ledgerWritesOf } from './ledger-steps.ts'

describe.each(DATABASE_KINDS)('ledger steps sharing statements on %s', (kind) => {
  let database: Database
  beforeAll(async () => {
    database = await openTestDatabase(kind)
  })
  afterAll(async () => {
    await database?.close()
  })

  it('two steps of one settlement row queued together both land (a statement applies one update of a row)', async () => {
    const writes = ledgerWritesOf(database.db, groupCommitOf(database.db))
    const id = randomUUID()
    await writes.reserve({
      id,
      paymentId: `eip155:84532:0xabc:${id}`,
      network: 'eip155:84532',
      payer: '0xabc',
      amount: '1000',
      operation: 'sanctions_screen',
      keyId: null,
      instanceId: 'instance-a',
      payment: '{}',
      validBefore: null,
    })
    expect(await writes.firstAttempt({ id, now: new Date().toISOString() })).toBe(true)
    // Another worker records the settlement while the call keeps its answer, in the same batch.
    const [settled, kept] = await Promise.all([
      writes.settled({ id, transaction: '0x01', fallback: false, at: new Date().toISOString() }),
      writes.keepAnswer({ id, requestHash: 'request', status: 200, body: '{"result":"clear"}' }),
    ])
    expect({ settled, kept }).toEqual({ settled: true, kept: true })
    const [row] = await executePrepared(
      database.db,
      'select status, phase, answer_status, answer_body from settlements where id = $1',
      [id],
    )
    expect(row).toMatchObject({
      status: 'SETTLED',
      phase: 'done',
      answer_status: 200,
      answer_body: '{"result":"clear"}',
    })
  })
})
