import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type FakeWebhookReceiver, startFakeWebhookReceiver } from '../support/fakes/fake-webhook-receiver.ts'
import {
  deliveryFigures,
  killHard,
  type ServerChild,
  seedDeliveries,
  startWebhookServerChild,
  waitForAllDelivered,
} from '../support/monitoring/delivery-faults.ts'
import { startTempPostgres, type TempPostgres } from '../support/postgres.ts'

/**
 * No delivery lost, second part: PostgreSQL is restarted while 1,000 deliveries are
 * queued or in flight, and every event still reaches the receiver at least once.
 */

const EVENTS = 1000
const PREFIX = 'evt-load-'

describe('webhook deliveries survive a PostgreSQL restart', () => {
  let receiver: FakeWebhookReceiver | undefined
  const children: ServerChild[] = []
  let workDir = ''
  let temp: TempPostgres | undefined

  afterEach(async () => {
    for (const server of children.splice(0)) await killHard(server.child)
    await receiver?.close()
    temp?.stop()
    temp = undefined
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  })

  it('PostgreSQL restarted in the middle of 1,000 deliveries: none lost', async () => {
    workDir = mkdtempSync(path.join(tmpdir(), 'webhook-loss-'))
    temp = await startTempPostgres()
    receiver = await startFakeWebhookReceiver()
    const secretKey = randomBytes(32).toString('hex')
    const { secret } = await seedDeliveries({ url: temp.url }, secretKey, receiver.url, EVENTS)
    const server = await startWebhookServerChild(
      { DATABASE_URL: temp.url, WEBHOOK_SECRET_KEYS: secretKey },
      receiver,
      workDir,
    )
    children.push(server)
    await receiver.waitFor(200, 40_000)
    temp.pause()
    const atPause = deliveryFigures(receiver, PREFIX)
    await new Promise((resolve) => setTimeout(resolve, 2000))
    temp.resume()
    // postgres.js 3.4 can crash the process when the server goes away under load (an uncatchable
    // TypeError in its write scheduler, porsager/postgres#1154 and #1208, unfixed upstream). A
    // supervisor restarts a crashed process; so does this test, and it reports that it did.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const crashed = server.child.exitCode !== null || server.child.signalCode !== null
    if (crashed) {
      children.push(
        await startWebhookServerChild(
          { DATABASE_URL: temp.url, WEBHOOK_SECRET_KEYS: secretKey },
          receiver,
          workDir,
        ),
      )
    }
    const figures = await waitForAllDelivered(receiver, PREFIX, EVENTS, 60_000)
    console.log(
      `loss test (postgres restart after ${atPause.distinct} delivered${crashed ? '; the service crashed with the database (postgres.js #1154) and was restarted' : ''}): queued ${EVENTS}, delivered ${figures.distinct}, received ${figures.received}, duplicates ${figures.duplicates}, lost ${EVENTS - figures.distinct}`,
    )
    expect(figures.distinct).toBe(EVENTS)
    expect(receiver.allVerify(secret)).toBe(true)
  }, 120_000)
})
