import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { systemClock } from '../../../core/context.ts'
import { createDatabase } from '../../../core/store/database.ts'
import { createSecretBox, parseSecretKey } from '../../../core/webhooks/secret-box.ts'
import { createWebhookStore } from '../../../core/webhooks/webhook-store.ts'
import { pgliteTemplateDump } from '../database.ts'
import type { FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.ts'
import { waitFor } from '../paid-server.ts'
import { tsEntry } from '../ts-entry.ts'

/**
 * Test-only helpers of the webhook fault and throughput tests: seed a queue of deliveries into a
 * database, and run the real server as a child process that can be killed with SIGKILL.
 */

/** Creates one webhook of `keyId` to the receiver and queues `count` events for it. */
export async function seedDeliveries(
  database: { url?: string; dataDir?: string },
  secretKey: string,
  receiverUrl: string,
  count: number,
): Promise<{ webhookId: string; secret: string }> {
  // A new data folder starts as a copy of the migrated template.
  const opened = await createDatabase({ ...database, loadDataDir: pgliteTemplateDump() })
  try {
    const store = createWebhookStore({
      db: opened.db,
      box: createSecretBox([parseSecretKey(secretKey)]),
      clock: systemClock,
    })
    const { view, secret } = await store.create('key-load', receiverUrl, ['sanctions.match.new'])
    const now = new Date()
    await opened.db.transaction(async (tx) => {
      for (let n = 0; n < count; n++) {
        await store.enqueue(tx, 'key-load', 'sanctions.match.new', `evt-load-${n}`, { n }, now)
      }
    })
    return { webhookId: view.webhook_id, secret }
  } finally {
    await opened.close()
  }
}

export interface ServerChild {
  child: ChildProcess
  port: number
}

/** Starts test/support/monitoring/webhook-server-main.ts with `env`; resolves once it listens. */
export async function startWebhookServerChild(
  env: Record<string, string>,
  receiver: FakeWebhookReceiver,
  workDir: string,
): Promise<ServerChild> {
  const caFile = path.join(workDir, 'test-ca.pem')
  writeFileSync(caFile, receiver.ca)
  const child = spawn(process.execPath, tsEntry('test/support/monitoring/webhook-server-main.ts'), {
    env: {
      ...process.env,
      PORT: '0',
      LOG_LEVEL: 'warn',
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: '3600000',
      TEST_WEBHOOK_CA_FILE: caFile,
      TEST_WEBHOOK_HOST: receiver.hostname,
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_CLAIM_LOCK_MS: '11000',
      ...env,
    },
    stdio: ['ignore', 'pipe', process.env.DEBUG_CHILD ? 'inherit' : 'ignore'],
  })
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer]
  const { port } = JSON.parse(chunk.toString()) as { port: number }
  return { child, port }
}

/** SIGKILL, and wait until the process is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGKILL')
  await exited
}

/** Events received, distinct event ids and duplicates (received more than once). */
export function deliveryFigures(receiver: FakeWebhookReceiver, prefix: string) {
  const ids = receiver.received.map((delivery) => delivery.eventId).filter((id) => id?.startsWith(prefix))
  const distinct = new Set(ids)
  return { received: ids.length, distinct: distinct.size, duplicates: ids.length - distinct.size }
}

/** Waits until every one of `events` seeded events reached the receiver; its figures then. */
export function waitForAllDelivered(
  receiver: FakeWebhookReceiver,
  prefix: string,
  events: number,
  timeoutMs: number,
): Promise<ReturnType<typeof deliveryFigures>> {
  return waitFor(
    async () => {
      const figures = deliveryFigures(receiver, prefix)
      return figures.distinct === events ? figures : undefined
    },
    `all ${events} events (so far ${JSON.stringify(deliveryFigures(receiver, prefix))})`,
    timeoutMs,
  )
}
