import { and, eq } from 'drizzle-orm'
import { webhooks } from '../store/schema.ts'

/** The key's active webhooks: every customer-facing query is scoped by key id, so one key never sees another's. */
export const activeWebhooksOf = (keyId: string) =>
  and(eq(webhooks.keyId, keyId), eq(webhooks.status, 'active'))
