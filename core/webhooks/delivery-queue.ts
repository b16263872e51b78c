import { randomUUID } from 'node:crypto'
import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm'
import type { Clock } from '../context.ts'
import type { Db, DbTransaction } from '../store/database.ts'
import { webhookAttempts, webhookDeliveries, webhooks } from '../store/schema.ts'
import { backoffMs, WEBHOOK_LIMITS } from './events.ts'
import type { SecretBox } from './secret-box.ts'
import { envelopeBody } from './signing.ts'
import { activeWebhooksOf } from './webhook-scope.ts'

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string
  webhookId: string
  keyId: string
  eventId: string
  body: string
  attempts: number
  url: string
  secret: string
}

export interface AttemptOutcome {
  delivered: boolean
  status_code: number | null
  duration_ms: number
  error: string | null
}

/**
 * The durable delivery queue (spec: Webhook States, Limits): rows, never memory. A delivery is
 * claimed by one process at a time (FOR UPDATE SKIP LOCKED plus a lock deadline), so several
 * processes share the work and a process killed mid-delivery only delays its rows until the lock
 * runs out.
 */
export interface DeliveryQueue {
  /**
   * Queues one event for every active webhook of the key subscribed to it, inside the caller's
   * transaction (so the event and its deliveries commit together). Returns the rows queued.
   */
  enqueue(
    tx: DbTransaction | Db,
    keyId: string,
    event: string,
    eventId: string,
    data: unknown,
    createdAt: Date,
  ): Promise<number>
  /** Claims up to `limit` due deliveries for this process. */
  claim(instanceId: string, limit: number, lockMs: number): Promise<ClaimedDelivery[]>
  /** Records an attempt and moves the delivery (and the webhook's failure counter) on. */
  record(instanceId: string, delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void>
}

export interface DeliveryQueueOptions {
  db: Db
  box: SecretBox
  clock: Clock
  random?: () => number
}

/** The delivery queue over the database. */
export function createDeliveryQueue({
  db,
  box,
  clock,
  random = Math.random,
}: DeliveryQueueOptions): DeliveryQueue {
  return {
    async enqueue(tx, keyId, event, eventId, data, createdAt) {
      const targets = await tx
        .select({ id: webhooks.id, events: webhooks.events })
        .from(webhooks)
        .where(activeWebhooksOf(keyId))
      const subscribed = targets.filter((target) => target.events.includes(event))
      if (subscribed.length === 0) return 0
      const body = envelopeBody({ event, event_id: eventId, created_at: createdAt.toISOString(), data })
      const rows = await tx
        .insert(webhookDeliveries)
        .values(
          subscribed.map((target) => ({
            id: `dlv_${randomUUID().replaceAll('-', '')}`,
            webhookId: target.id,
            keyId,
            event,
            eventId,
            body,
            status: 'queued',
            attempts: 0,
            nextAttemptAt: createdAt,
            createdAt,
          })),
        )
        .onConflictDoNothing()
        .returning({ id: webhookDeliveries.id })
      return rows.length
    },

    async claim(instanceId, limit, lockMs) {
      const now = clock.now()
      const due = db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.status, 'queued'),
            lte(webhookDeliveries.nextAttemptAt, now),
            or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, now)),
          ),
        )
        .orderBy(asc(webhookDeliveries.nextAttemptAt))
        .limit(limit)
        .for('update', { skipLocked: true })
      const claimed = await db
        .update(webhookDeliveries)
        .set({ lockedUntil: new Date(now.getTime() + lockMs), lockedBy: instanceId })
        .where(inArray(webhookDeliveries.id, due))
        .returning()
      if (claimed.length === 0) return []
      const hooks = await db
        .select()
        .from(webhooks)
        .where(inArray(webhooks.id, [...new Set(claimed.map((row) => row.webhookId))]))
      const byId = new Map(hooks.map((hook) => [hook.id, hook]))
      const out: ClaimedDelivery[] = []
      for (const row of claimed) {
        const hook = byId.get(row.webhookId)
        if (hook?.status !== 'active') continue
        let secret: string
        try {
          secret = box.open(hook.secretKeyId, hook.secret)
        } catch {
          // Sealed with a key this process lacks (WEBHOOK_SECRET_KEYS differs between processes):
          // left claimed, so a process that holds the key sends it once the claim runs out.
          continue
        }
        out.push({
          id: row.id,
          webhookId: row.webhookId,
          keyId: row.keyId,
          eventId: row.eventId,
          body: row.body,
          attempts: row.attempts,
          url: hook.url,
          secret,
        })
      }
      return out
    },

    async record(instanceId, delivery, outcome) {
      const now = clock.now()
      const attempt = delivery.attempts + 1
      await db.transaction(async (tx) => {
        await tx.insert(webhookAttempts).values({
          id: randomUUID(),
          deliveryId: delivery.id,
          webhookId: delivery.webhookId,
          attempt,
          statusCode: outcome.status_code,
          durationMs: outcome.duration_ms,
          error: outcome.error,
          instanceId,
          at: now,
        })
        const mine = and(
          eq(webhookDeliveries.id, delivery.id),
          eq(webhookDeliveries.status, 'queued'),
          eq(webhookDeliveries.lockedBy, instanceId),
        )
        const base = {
          attempts: attempt,
          lastStatusCode: outcome.status_code,
          lastError: outcome.error,
          lockedUntil: null,
          lockedBy: null,
        }
        if (outcome.delivered) {
          const done = await tx
            .update(webhookDeliveries)
            .set({ ...base, status: 'delivered', finishedAt: now })
            .where(mine)
            .returning({ id: webhookDeliveries.id })
          if (done.length > 0) {
            await tx
              .update(webhooks)
              .set({ consecutiveFailures: 0 })
              .where(eq(webhooks.id, delivery.webhookId))
          }
          return
        }
        if (attempt < WEBHOOK_LIMITS.maxAttempts) {
          await tx
            .update(webhookDeliveries)
            .set({ ...base, nextAttemptAt: new Date(now.getTime() + backoffMs(attempt + 1, random)) })
            .where(mine)
          return
        }
        const failed = await tx
          .update(webhookDeliveries)
          .set({ ...base, status: 'failed', finishedAt: now })
          .where(mine)
          .returning({ id: webhookDeliveries.id })
        if (failed.length > 0) await countFailedEvent(tx, delivery.webhookId, now)
      })
    },
  }
}

/**
 * One more failed event for the webhook; at the limit (spec: 10 consecutive failed events) the
 * webhook is deactivated and its queued deliveries dropped.
 */
async function countFailedEvent(tx: DbTransaction, webhookId: string, now: Date): Promise<void> {
  const [hook] = await tx
    .update(webhooks)
    .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1` })
    .where(eq(webhooks.id, webhookId))
    .returning({ failures: webhooks.consecutiveFailures, status: webhooks.status })
  if (hook?.status !== 'active' || hook.failures < WEBHOOK_LIMITS.deactivateAfterFailedEvents) return
  await tx
    .update(webhooks)
    .set({ status: 'deactivated', deactivatedAt: now })
    .where(eq(webhooks.id, webhookId))
  await tx
    .update(webhookDeliveries)
    .set({ status: 'dropped', finishedAt: now, lockedUntil: null, lockedBy: null })
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, 'queued')))
}
