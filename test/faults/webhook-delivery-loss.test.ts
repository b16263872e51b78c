import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { testPostgresUrl } from '../support/database.ts'
import { type FakeWebhookReceiver, startFakeWebhookReceiver } from '../support/fakes/fake-webhook-receiver.ts'
import {
  deliveryFigures,
  killHard,
  type ServerChild,
  seedDeliveries,
  startWebhookServerChild,
  waitForAllDelivered,
} from '../support/monitoring/delivery-faults.ts'

/**
 * No delivery lost: the service is killed with SIGKILL while 1,000 deliveries are
 * queued or in flight, restarted, and every event reaches the receiver at least once (on
 * PostgreSQL and on PGlite; the PostgreSQL restart is delivery-db-restart.test.ts). The figures
 * (queued, delivered, duplicates) are printed.
 */

const EVENTS = 1000
const PREFIX = 'evt-load-'

describe('webhook deliveries survive a SIGKILL', () => {
  let receiver: FakeWebhookReceiver | undefined
  const children: ServerChild[] = []
  let workDir = ''

  afterEach(async () => {
    for (const server of children.splice(0)) await killHard(server.child)
    await receiver?.close()
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  })

  async function runKillScenario(
    kind: 'pglite' | 'postgres',
    env: Record<string, string>,
    seedAt: { url?: string; dataDir?: string },
  ) {
    receiver = await startFakeWebhookReceiver()
    const secretKey = randomBytes(32).toString('hex')
    const { secret } = await seedDeliveries(seedAt, secretKey, receiver.url, EVENTS)
    const fullEnv = { ...env, WEBHOOK_SECRET_KEYS: secretKey }
    const first = await startWebhookServerChild(fullEnv, receiver, workDir)
    children.push(first)
    await receiver.waitFor(200, 40_000)
    await killHard(first.child)
    const atKill = deliveryFigures(receiver, PREFIX)
    const second = await startWebhookServerChild(fullEnv, receiver, workDir)
    children.push(second)
    const figures = await waitForAllDelivered(receiver, PREFIX, EVENTS, 60_000)
    console.log(
      `loss test (${kind}, SIGKILL after ${atKill.distinct} delivered): queued ${EVENTS}, delivered ${figures.distinct}, received ${figures.received}, duplicates ${figures.duplicates}, lost ${EVENTS - figures.distinct}`,
    )
    expect(figures.distinct).toBe(EVENTS)
    expect(receiver.allVerify(secret)).toBe(true)
  }

  it('PGlite: SIGKILL with 1,000 queued, restart on the same data folder, none lost', async () => {
    workDir = mkdtempSync(path.join(tmpdir(), 'webhook-loss-'))
    const dataDir = path.join(workDir, 'data')
    await runKillScenario('pglite', { DATA_DIR: dataDir }, { dataDir })
  }, 120_000)

  it('PostgreSQL: SIGKILL with 1,000 queued, restart, none lost', async () => {
    workDir = mkdtempSync(path.join(tmpdir(), 'webhook-loss-'))
    const url = await testPostgresUrl('loss')
    await runKillScenario('postgres', { DATABASE_URL: url }, { url })
  }, 120_000)
})
