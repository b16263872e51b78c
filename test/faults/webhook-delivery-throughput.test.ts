import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { count, eq, gt, sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { createDatabase } from '../../core/store/database.ts'
import { webhookAttempts } from '../../core/store/schema.ts'
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
 * Delivery throughput: deliveries per second to a local HTTPS receiver with two
 * service processes on one PostgreSQL sharing the queue, and no event delivered by both as a
 * first attempt.
 */
const EVENTS = 2000
const PREFIX = 'evt-load-'

describe('webhook delivery throughput with two processes on one PostgreSQL', () => {
  let receiver: FakeWebhookReceiver | undefined
  const children: ServerChild[] = []
  let workDir = ''

  afterAll(async () => {
    for (const server of children.splice(0)) await killHard(server.child)
    await receiver?.close()
    if (workDir) rmSync(workDir, { recursive: true, force: true })
  })

  it('shares the queue: every event once as a first attempt, figures printed', async () => {
    workDir = mkdtempSync(path.join(tmpdir(), 'webhook-throughput-'))
    receiver = await startFakeWebhookReceiver()
    const url = await testPostgresUrl('tp')
    const secretKey = randomBytes(32).toString('hex')
    const env = { DATABASE_URL: url, WEBHOOK_SECRET_KEYS: secretKey }
    const { secret } = await seedDeliveries({ url }, secretKey, receiver.url, EVENTS)
    const firstStarted = performance.now()
    const [a, b] = await Promise.all([0, 1].map(() => startWebhookServerChild(env, receiver!, workDir)))
    children.push(a!, b!)
    const started = performance.now()
    const beforeBoth = deliveryFigures(receiver, PREFIX).distinct
    const figures = await waitForAllDelivered(receiver, PREFIX, EVENTS, 120_000)
    const seconds = (performance.now() - started) / 1000
    const total = (performance.now() - firstStarted) / 1000
    const check = await createDatabase({ url, maxConnections: 2 })
    try {
      const firstAttempts = await check.db
        .select({ deliveryId: webhookAttempts.deliveryId, n: count() })
        .from(webhookAttempts)
        .where(eq(webhookAttempts.attempt, 1))
        .groupBy(webhookAttempts.deliveryId)
        .having(gt(count(), 1))
      const byInstance = await check.db
        .select({ instance: webhookAttempts.instanceId, n: count() })
        .from(webhookAttempts)
        .groupBy(webhookAttempts.instanceId)
        .orderBy(sql`2 desc`)
      console.log(
        `throughput: ${EVENTS} deliveries by 2 processes on one PostgreSQL: ${((EVENTS - beforeBoth) / seconds).toFixed(0)} deliveries/s once both listened (${EVENTS - beforeBoth} in ${seconds.toFixed(1)} s; ${total.toFixed(1)} s from spawn incl. start-up); split ${byInstance.map((row) => row.n).join(' / ')}; first attempts by both: ${firstAttempts.length}; duplicates at the receiver: ${figures.duplicates}`,
      )
      expect(firstAttempts).toEqual([])
      expect(byInstance).toHaveLength(2)
      expect(figures).toEqual({ received: EVENTS, distinct: EVENTS, duplicates: 0 })
      expect(receiver.allVerify(secret)).toBe(true)
    } finally {
      await check.close()
    }
  }, 150_000)
})
