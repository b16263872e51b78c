import { randomUUID } from 'node:crypto'
import { and, asc, count, eq, gt, or, sql } from 'drizzle-orm'
import type { Clock } from '../context.ts'
import { ServiceError } from '../errors.ts'
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

/**
 * Webhooks one key may hold (docs/sanctions.md): every alert fans out to each of them, so the
 * number is bounded like the watchlist.
 */
export const DEFAULT_WEBHOOK_CAP = 100

/** A page of a key's webhooks, oldest first; `next_cursor` continues after the last one. */
export interface WebhookPage {
  webhooks: WebhookView[]
  /** Opaque; null on the last page. */
  next_cursor: string | null
}

/** A key's webhooks: created with a secret shown once, listed, read with the secret, removed. */
export interface WebhookRegistrations {
  /** Registers a webhook; 422 when the key already holds `cap` (counted exactly under concurrency). */
  create(
    keyId: string,
    url: string,
    events: readonly string[],
  ): Promise<{ view: WebhookView; secret: string }>
  /** One page of the key's webhooks (created_at, then id); 422 for a cursor this store did not issue. */
  list(keyId: string, page?: { limit: number; cursor?: string }): Promise<WebhookPage>
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
  /** Webhooks per key (default DEFAULT_WEBHOOK_CAP). */
  cap?: number
}

/** The cursor after a webhook: its creation time (ISO 8601, milliseconds) and id. */
function cursorAfter(row: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString('base64url')
}

function parseCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]
    const createdAt = new Date(String(at))
    // Webhook ids are `wh_` and hex: anything else (a NUL PostgreSQL refuses in text) is not ours.
    const ours = /^[A-Za-z0-9_-]{1,100}$/
    if (
      typeof at === 'string' &&
      typeof id === 'string' &&
      ours.test(id) &&
      !Number.isNaN(createdAt.getTime())
    ) {
      return { createdAt, id }
    }
  } catch {
    // falls through to the refusal
  }
  throw new ServiceError('validation_failed', 'invalid cursor', {
    fields: [{ field: 'cursor', message: 'not a cursor from a previous page (next_cursor / Link header)' }],
  })
}

/** The keys' webhooks over the database, their secrets sealed at rest. */
export function createWebhookRegistrations({
  db,
  box,
  clock,
  cap = DEFAULT_WEBHOOK_CAP,
}: WebhookStoreOptions): WebhookRegistrations {
  const active = activeWebhooksOf
  return {
    async create(keyId, url, events) {
      const secret = newWebhookSecret()
      const sealed = box.seal(secret)
      // Count and insert under a per-key transaction lock, so concurrent registrations of one key
      // queue here and the cap is exact (PostgreSQL; PGlite runs one transaction at a time anyway).
      const row = await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`webhooks:${keyId}`}, 0))`)
        const [held] = await tx.select({ n: count() }).from(webhooks).where(active(keyId))
        if (Number(held?.n ?? 0) >= cap) {
          throw new ServiceError('validation_failed', 'too many webhooks', {
            fields: [
              { field: 'url', message: `a key may register at most ${cap} webhooks; delete some first` },
            ],
          })
        }
        const [inserted] = await tx
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
        return inserted
      })
      if (!row) throw new Error('webhook not stored')
      return { view: view(row), secret }
    },

    async list(keyId, page = { limit: cap }) {
      const after = page.cursor === undefined ? undefined : parseCursor(page.cursor)
      const rows = await db
        .select()
        .from(webhooks)
        .where(
          after
            ? and(
                active(keyId),
                or(
                  gt(webhooks.createdAt, after.createdAt),
                  and(eq(webhooks.createdAt, after.createdAt), gt(webhooks.id, after.id)),
                ),
              )
            : active(keyId),
        )
        .orderBy(asc(webhooks.createdAt), asc(webhooks.id))
        .limit(page.limit + 1)
      const shown = rows.slice(0, page.limit)
      const last = shown[shown.length - 1]
      return {
        webhooks: shown.map(view),
        next_cursor: rows.length > page.limit && last ? cursorAfter(last) : null,
      }
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
