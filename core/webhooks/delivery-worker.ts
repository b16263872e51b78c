import { randomUUID } from 'node:crypto'
import { type AttemptResult, createPinnedAgentPool, type DeliverOptions, deliverOnce } from './deliver.ts'
import { WEBHOOK_LIMITS } from './events.ts'
import { signBody } from './signing.ts'
import type { ClaimedDelivery, WebhookStore } from './webhook-store.ts'

/**
 * The background sender: claims due deliveries from the queue (several processes may run one
 * each on the same database), sends them signed, and records every attempt. Nothing is held in
 * memory between passes; a process killed mid-delivery leaves its claimed rows to be claimed
 * again once their lock runs out (at-least-once delivery; `event_id` de-duplicates).
 */

export type Send = (url: string, body: string, headers: Record<string, string>) => Promise<AttemptResult>

export interface DeliveryWorkerOptions {
  store: WebhookStore
  /** How the signature header is named on the wire (the adapter's choice; spec: X-Service-Signature). */
  signatureHeader: string
  deliver?: DeliverOptions
  /** Replaces the HTTP send (tests). */
  send?: Send
  instanceId?: string
  /** Deliveries sent at once (default 16). */
  concurrency?: number
  /** Pause when the queue has nothing due (default 1000 ms). */
  pollMs?: number
  /** How long a claim holds a row (default 60 s; at least the receiver timeout). */
  lockMs?: number
  log?: (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void
}

export interface DeliveryWorker {
  start(): void
  stop(): Promise<void>
  /** One claim-and-send pass; the number of deliveries attempted. */
  runOnce(): Promise<number>
  /** Wakes the loop now (an event was queued). */
  poke(): void
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const instanceId = options.instanceId ?? randomUUID()
  const concurrency = options.concurrency ?? 16
  const pollMs = options.pollMs ?? 1000
  const lockMs = Math.max(options.lockMs ?? 60_000, WEBHOOK_LIMITS.timeoutMs + 1000)
  const log = options.log ?? (() => {})
  const agents = createPinnedAgentPool()
  const send: Send =
    options.send ?? ((url, body, headers) => deliverOnce(url, body, headers, { ...options.deliver, agents }))
  let running = false
  let loop: Promise<void> | undefined
  let wake: (() => void) | undefined
  let timer: NodeJS.Timeout | undefined

  async function sendOne(delivery: ClaimedDelivery): Promise<void> {
    const headers = { [options.signatureHeader]: signBody(delivery.secret, delivery.body) }
    const outcome = await send(delivery.url, delivery.body, headers)
    await options.store.record(instanceId, delivery, outcome)
  }

  async function runOnce(): Promise<number> {
    const claimed = await options.store.claim(instanceId, concurrency, lockMs)
    await Promise.all(
      claimed.map((delivery) =>
        sendOne(delivery).catch((error) =>
          log('warn', 'webhook delivery attempt not recorded', {
            delivery: delivery.id,
            error: String(error),
          }),
        ),
      ),
    )
    return claimed.length
  }

  async function run(): Promise<void> {
    while (running) {
      let sent = 0
      try {
        sent = await runOnce()
      } catch (error) {
        log('warn', 'webhook queue pass failed', String(error))
      }
      if (!running) break
      if (sent > 0) continue
      await new Promise<void>((resolve) => {
        wake = resolve
        timer = setTimeout(resolve, pollMs)
        timer.unref?.()
      })
      wake = undefined
    }
  }

  return {
    start() {
      if (running) return
      running = true
      loop = run()
    },
    async stop() {
      running = false
      if (timer) clearTimeout(timer)
      wake?.()
      await loop
      await agents.close()
    },
    runOnce,
    poke() {
      wake?.()
    },
  }
}
