import { randomUUID } from 'node:crypto'
import { and, asc, eq } from 'drizzle-orm'
import type { Clock } from '../context.ts'
import type { Db } from '../store/database.ts'
import { webhookAttempts, webhookDeliveries, webhooks } from '../store/schema.ts'
import { createDeliveryHistory, type DeliveryHistory } from './delivery-history.ts'
import { createDeliveryQueue, type DeliveryQueue } from './delivery-queue.ts'
import { DELIVERED_EVENTS } from './events.ts'
import type { SecretBox } from './secret-box.ts'
import { newWebhookSecret } from './signing.ts'
import { activeWebhooksOf } from './webhook-scope.ts'

export type { DeliveryAttemptView, DeliveryView } from './delivery-history.ts'
export type { AttemptOutcome, ClaimedDelivery } from './delivery-queue.ts'

/**
 * Webhooks and their durable delivery queue (spec: Webhook resource, States, Limits), in three
 * parts: the keys' webhooks (here), the delivery queue (delivery-queue.ts) and what a key sees of
 * its deliveries (delivery-history.ts). Every customer-facing query is scoped by key id, so one
 * key never sees another's webhooks or deliveries.
 */

export interface WebhookView {
  webhook_id: string
  url: string
  events: string[]
  status: 'active'
  created_at: string
  delivered_events: string[]
}

/** A key's webhooks: created with a secret shown once, listed, read with the secret, removed. */
export interface WebhookRegistrations {
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
}

export interface WebhookStore extends WebhookRegistrations, DeliveryQueue, DeliveryHistory {}

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

/** The keys' webhooks over the database, their secrets sealed at rest. */
export function createWebhookRegistrations({ db, box, clock }: WebhookStoreOptions): WebhookRegistrations {
  const active = activeWebhooksOf
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
  }
}

/** The webhooks of every key, their delivery queue and their delivery history. */
export function createWebhookStore(options: WebhookStoreOptions): WebhookStore {
  return {
    ...createWebhookRegistrations(options),
    ...createDeliveryQueue(options),
    ...createDeliveryHistory(options.db),
  }
}
