import { randomUUID } from 'node:crypto'
import { and, asc, count, desc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm'
import type { Clock } from '../context.ts'
import type { Db, DbTransaction } from '../store/database.ts'
import { webhookAttempts, webhookDeliveries, webhooks } from '../store/schema.ts'
import { backoffMs, DELIVERED_EVENTS, WEBHOOK_LIMITS } from './events.ts'
import type { SecretBox } from './secret-box.ts'
import { envelopeBody, newWebhookSecret } from './signing.ts'

/**
 * Webhooks and their durable delivery queue (spec: Webhook resource, States, Limits). Every
 * customer-facing query is scoped by key id, so one key never sees another's webhooks or
 * deliveries. The queue is rows, never memory: a delivery is claimed by one process at a time
 * (FOR UPDATE SKIP LOCKED plus a lock deadline), so several processes share the work and a
 * process killed mid-delivery only delays its rows until the lock runs out.
 */

export interface WebhookView {
  webhook_id: string
  url: string
  events: string[]
  status: 'active'
  created_at: string
  delivered_events: string[]
}

export interface DeliveryAttemptView {
  attempt: number
  at: string
  status_code: number | null
  duration_ms: number
  error: string | null
}

export interface DeliveryView {
  delivery_id: string
  event: string
  event_id: string
  status: 'queued' | 'retrying' | 'delivered' | 'failed' | 'dropped'
  attempts: number
  next_attempt_at: string | null
  last_status_code: number | null
  last_error: string | null
  created_at: string
  finished_at: string | null
  attempt_log: DeliveryAttemptView[]
}

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

export interface WebhookStore {
  create(
    keyId: string,
    url: string,
    events: readonly string[],
  ): Promise<{ view: WebhookView; secret: string }>
  list(keyId: string): Promise<WebhookView[]>
  /** The key's active webhook with its secret (test deliveries), or null. */
  get(keyId: string, webhookId: string): Promise<(WebhookView & { secret: string }) | null>
  /** Removes the webhook and its delivery history; false for an unknown id or another key's. */
  remove(keyId: string, webhookId: string): Promise<boolean>
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
  /** Records the single attempt of a test delivery (no queue row). */
  deliveries(
    keyId: string,
    webhookId: string,
    options: { limit: number; offset: number },
  ): Promise<{ total: number; deliveries: DeliveryView[] } | null>
  /** Queue depth by status (operator figures, tests). */
  counts(): Promise<Record<string, number>>
}

type WebhookRow = typeof webhooks.$inferSelect

function view(row: WebhookRow): WebhookView {
  const events = row.events
  return {
    webhook_id: row.id,
    url: row.url,
    events: [...events],
    status: 'active',
    created_at: row.createdAt.toISOString(),
    delivered_events: events.filter((event) => (DELIVERED_EVENTS as readonly string[]).includes(event)),
  }
}

export interface WebhookStoreOptions {
  db: Db
  box: SecretBox
  clock: Clock
  random?: () => number
}

export function createWebhookStore({
  db,
  box,
  clock,
  random = Math.random,
}: WebhookStoreOptions): WebhookStore {
  const active = (keyId: string) => and(eq(webhooks.keyId, keyId), eq(webhooks.status, 'active'))

  return {
    async create(keyId, url, events) {
      const secret = newWebhookSecret()
      const sealed = box.seal(secret)
      const [row] = await db
        .insert(webhooks)
        .values({
          id: `wh_${randomUUID().replaceAll('-', '')}`,
          keyId,
          url,
          events: [...new Set(events)],
          secret: sealed.sealed,
          secretKeyId: sealed.keyId,
          status: 'active',
          createdAt: clock.now(),
        })
        .returning()
      if (!row) throw new Error('webhook not stored')
      return { view: view(row), secret }
    },

    async list(keyId) {
      const rows = await db.select().from(webhooks).where(active(keyId)).orderBy(asc(webhooks.createdAt))
      return rows.map(view)
    },

    async get(keyId, webhookId) {
      const [row] = await db
        .select()
        .from(webhooks)
        .where(and(active(keyId), eq(webhooks.id, webhookId)))
        .limit(1)
      return row ? { ...view(row), secret: box.open(row.secretKeyId, row.secret) } : null
    },

    async remove(keyId, webhookId) {
      return db.transaction(async (tx) => {
        const removed = await tx
          .delete(webhooks)
          .where(and(active(keyId), eq(webhooks.id, webhookId)))
          .returning({ id: webhooks.id })
        if (removed.length === 0) return false
        await tx.delete(webhookAttempts).where(eq(webhookAttempts.webhookId, webhookId))
        await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId))
        return true
      })
    },

    async enqueue(tx, keyId, event, eventId, data, createdAt) {
      const targets = await tx
        .select({ id: webhooks.id, events: webhooks.events })
        .from(webhooks)
        .where(active(keyId))
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
        if (failed.length === 0) return
        const [hook] = await tx
          .update(webhooks)
          .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1` })
          .where(eq(webhooks.id, delivery.webhookId))
          .returning({ failures: webhooks.consecutiveFailures, status: webhooks.status })
        if (hook && hook.status === 'active' && hook.failures >= WEBHOOK_LIMITS.deactivateAfterFailedEvents) {
          await tx
            .update(webhooks)
            .set({ status: 'deactivated', deactivatedAt: now })
            .where(eq(webhooks.id, delivery.webhookId))
          await tx
            .update(webhookDeliveries)
            .set({ status: 'dropped', finishedAt: now, lockedUntil: null, lockedBy: null })
            .where(
              and(
                eq(webhookDeliveries.webhookId, delivery.webhookId),
                eq(webhookDeliveries.status, 'queued'),
              ),
            )
        }
      })
    },

    async deliveries(keyId, webhookId, { limit, offset }) {
      const [hook] = await db
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(and(active(keyId), eq(webhooks.id, webhookId)))
        .limit(1)
      if (!hook) return null
      const scope = and(eq(webhookDeliveries.keyId, keyId), eq(webhookDeliveries.webhookId, webhookId))
      const [total] = await db.select({ n: count() }).from(webhookDeliveries).where(scope)
      const rows = await db
        .select()
        .from(webhookDeliveries)
        .where(scope)
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(limit)
        .offset(offset)
      const attempts =
        rows.length === 0
          ? []
          : await db
              .select()
              .from(webhookAttempts)
              .where(
                inArray(
                  webhookAttempts.deliveryId,
                  rows.map((row) => row.id),
                ),
              )
              .orderBy(asc(webhookAttempts.attempt))
      return {
        total: Number(total?.n ?? 0),
        deliveries: rows.map((row) => ({
          delivery_id: row.id,
          event: row.event,
          event_id: row.eventId,
          status:
            row.status === 'queued'
              ? row.attempts > 0
                ? ('retrying' as const)
                : ('queued' as const)
              : (row.status as DeliveryView['status']),
          attempts: row.attempts,
          next_attempt_at: row.status === 'queued' ? row.nextAttemptAt.toISOString() : null,
          last_status_code: row.lastStatusCode,
          last_error: row.lastError,
          created_at: row.createdAt.toISOString(),
          finished_at: row.finishedAt?.toISOString() ?? null,
          attempt_log: attempts
            .filter((attempt) => attempt.deliveryId === row.id)
            .map((attempt) => ({
              attempt: attempt.attempt,
              at: attempt.at.toISOString(),
              status_code: attempt.statusCode,
              duration_ms: attempt.durationMs,
              error: attempt.error,
            })),
        })),
      }
    },

    async counts() {
      const rows = await db
        .select({ status: webhookDeliveries.status, n: count() })
        .from(webhookDeliveries)
        .groupBy(webhookDeliveries.status)
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]))
    },
  }
}
