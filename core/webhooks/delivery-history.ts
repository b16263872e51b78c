import { and, asc, count, desc, eq, inArray } from 'drizzle-orm'
import type { Db } from '../store/database.ts'
import { webhookAttempts, webhookDeliveries, webhooks } from '../store/schema.ts'
import { activeWebhooksOf } from './webhook-scope.ts'

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

/** What a key sees of its webhook's deliveries (spec: GET /v1/webhooks/{id}/deliveries), and the queue's figures. */
export interface DeliveryHistory {
  /** A page of the webhook's deliveries, newest first, each with its attempts; null for an unknown id or another key's. */
  deliveries(
    keyId: string,
    webhookId: string,
    options: { limit: number; offset: number },
  ): Promise<{ total: number; deliveries: DeliveryView[] } | null>
  /** Queue depth by status (operator figures, tests). */
  counts(): Promise<Record<string, number>>
}

type DeliveryRow = typeof webhookDeliveries.$inferSelect
type AttemptRow = typeof webhookAttempts.$inferSelect

/** A queued delivery that was tried before is `retrying`. */
function deliveryView(row: DeliveryRow, attempts: readonly AttemptRow[]): DeliveryView {
  return {
    delivery_id: row.id,
    event: row.event,
    event_id: row.eventId,
    status:
      row.status === 'queued'
        ? row.attempts > 0
          ? 'retrying'
          : 'queued'
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
  }
}

/** The delivery history over the database. */
export function createDeliveryHistory(db: Db): DeliveryHistory {
  return {
    async deliveries(keyId, webhookId, { limit, offset }) {
      const [hook] = await db
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(and(activeWebhooksOf(keyId), eq(webhooks.id, webhookId)))
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
        deliveries: rows.map((row) => deliveryView(row, attempts)),
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
