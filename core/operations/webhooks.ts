import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { WebhookEventSchema } from '../webhooks/events.ts'
import { envelopeBody } from '../webhooks/signing.ts'
import { DEFAULT_WEBHOOK_CAP } from '../webhooks/webhook-store.ts'
import { monitoringOf } from './compliance-alerts.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf } from './operation-context.ts'

/**
 * Webhook operations (spec: Webhook operations, Events, States). A webhook
 * belongs to the key that registered it; another key's id is 404 like an unknown one.
 */

const pageInteger = (min: number, max: number) => z.coerce.number().int().min(min).max(max)

const WebhookSchema = z
  .object({
    webhook_id: z.string(),
    url: z.string().describe('The https URL deliveries are POSTed to'),
    events: z.array(z.string()).describe('Events registered'),
    status: z.literal('active').describe('active while registered (deactivated webhooks are not listed)'),
    created_at: z.string(),
    delivered_events: z
      .array(z.string())
      .describe('The registered events actually sent today (sanctions.match.new)'),
  })
  .strict()

const WebhookIdInput = z
  .object({ webhook_id: z.string().min(1).max(64).describe('Id of the webhook') })
  .strict()

export const WebhooksCreateInput = z
  .object({
    url: z
      .string()
      .max(2048)
      .describe('https URL; must resolve to public addresses only (checked again before every delivery)'),
    events: z
      .array(WebhookEventSchema)
      .min(1)
      .max(4)
      .describe('At least one event name from the spec table; no wildcard'),
  })
  .strict()

export const webhooksCreate = defineOperation({
  id: 'webhooks_create',
  http: { method: 'POST', path: '/v1/webhooks', status: 201 },
  summary: 'Register a webhook; the signing secret is shown once',
  description: `Deliveries are JSON envelopes with sorted keys (event, event_id, created_at, data) signed with X-Service-Signature = hex HMAC-SHA256 of the raw body keyed with the secret. Registering the same URL twice makes two webhooks. A key holds at most ${DEFAULT_WEBHOOK_CAP} webhooks (422 naming url beyond; counted exactly under concurrent registrations). 422 (string detail) when the URL is not https, does not resolve, or resolves to a private, loopback, link-local, reserved or metadata address. Free; needs an API key.`,
  input: WebhooksCreateInput,
  output: WebhookSchema.extend({
    secret: z.string().describe('The signing secret: returned once, stored encrypted, never shown again'),
  }).strict(),
  price: null,
  ports: ['monitoring'],
  access: { sandbox: 'run' },
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    const monitoring = monitoringOf(ctx)
    const check = await monitoring.checkUrl(input.url)
    if (!check.ok) throw new ServiceError('validation_failed', check.detail)
    const { view, secret } = await monitoring.webhooks.create(
      caller.keyId,
      check.url.toString(),
      input.events,
    )
    return { ...view, secret }
  },
})

export const webhooksList = defineOperation({
  id: 'webhooks_list',
  http: { method: 'GET', path: '/v1/webhooks', bodyField: 'webhooks', nextCursorField: 'next_cursor' },
  summary: "The calling key's active webhooks (never the secrets), oldest first, in pages",
  description: `Oldest first, in pages of limit (default ${DEFAULT_WEBHOOK_CAP}: all of them, since a key holds at most ${DEFAULT_WEBHOOK_CAP}); next_cursor continues, null on the last page. Over REST the body is the JSON array of webhooks (spec), the next page linked; the MCP tool returns {webhooks: [...], next_cursor}.`,
  input: z
    .object({
      limit: pageInteger(1, DEFAULT_WEBHOOK_CAP)
        .optional()
        .describe(
          `Webhooks per page, 1-${DEFAULT_WEBHOOK_CAP} (default ${DEFAULT_WEBHOOK_CAP}: all of them)`,
        ),
      cursor: z
        .string()
        .max(512)
        .optional()
        .describe('Where to continue: next_cursor of the previous page (the cursor of its Link header)'),
    })
    .strict(),
  output: z
    .object({
      webhooks: z.array(WebhookSchema),
      next_cursor: z
        .string()
        .nullable()
        .describe('Pass as cursor for the next page; null on the last page (REST: the Link header)'),
    })
    .strict(),
  price: null,
  ports: ['monitoring'],
  access: { sandbox: 'run' },
  run: async (input, ctx) =>
    monitoringOf(ctx).webhooks.list(keyCallerOf(ctx).keyId, {
      limit: input.limit ?? DEFAULT_WEBHOOK_CAP,
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    }),
})

export const webhooksDelete = defineOperation({
  id: 'webhooks_delete',
  http: { method: 'DELETE', path: '/v1/webhooks/{webhook_id}', status: 204 },
  summary: 'Delete a webhook and its delivery history',
  input: WebhookIdInput,
  output: z.object({ deleted: z.literal(true) }).strict(),
  price: null,
  ports: ['monitoring'],
  access: { sandbox: 'run' },
  destructive: true,
  run: async (input, ctx) => {
    if (!(await monitoringOf(ctx).webhooks.remove(keyCallerOf(ctx).keyId, input.webhook_id))) {
      throw new ServiceError('not_found', 'unknown webhook')
    }
    return { deleted: true as const }
  },
})

export const webhooksTest = defineOperation({
  id: 'webhooks_test',
  http: { method: 'POST', path: '/v1/webhooks/{webhook_id}/test', noBody: true },
  summary: 'Send one signed synthetic delivery now (one attempt, no retry)',
  description:
    'The envelope has event "webhook.test" and a fresh event_id, signed with the real secret. status_code is what the receiver answered, or null when it could not be reached (error says why).',
  input: WebhookIdInput,
  output: z
    .object({
      webhook_id: z.string(),
      event_id: z.string(),
      delivered: z.boolean().describe('True when the receiver answered 2xx within 10 s'),
      status_code: z.number().int().nullable().describe('HTTP status answered, null if unreachable'),
      duration_ms: z.number().int().min(0),
      error: z.string().nullable().describe('Why it failed (refused address, TLS, timeout, HTTP status)'),
    })
    .strict(),
  price: null,
  ports: ['monitoring'],
  access: { sandbox: 'run' },
  openWorld: true,
  run: async (input, ctx) => {
    const monitoring = monitoringOf(ctx)
    const hook = await monitoring.webhooks.get(keyCallerOf(ctx).keyId, input.webhook_id)
    if (!hook) throw new ServiceError('not_found', 'unknown webhook')
    const eventId = `evt_test_${randomUUID().replaceAll('-', '')}`
    const body = envelopeBody({
      event: 'webhook.test',
      event_id: eventId,
      created_at: ctx.clock.now().toISOString(),
      data: { webhook_id: hook.webhook_id, note: 'synthetic test delivery; acknowledge with 2xx' },
    })
    const result = await monitoring.sendOnce(hook.url, body, hook.secret)
    return { webhook_id: hook.webhook_id, event_id: eventId, ...result }
  },
})

export const webhooksDeliveries = defineOperation({
  id: 'webhooks_deliveries',
  http: { method: 'GET', path: '/v1/webhooks/{webhook_id}/deliveries' },
  summary: 'Deliveries of one webhook with every attempt (status, duration, error), newest first',
  input: WebhookIdInput.extend({
    limit: pageInteger(1, 200).optional().describe('Deliveries per page, 1-200 (default 50)'),
    offset: pageInteger(0, 10_000_000).optional().describe('Deliveries to skip (default 0)'),
  }).strict(),
  output: z
    .object({
      webhook_id: z.string(),
      total: z.number().int().min(0),
      limit: z.number().int(),
      offset: z.number().int(),
      deliveries: z.array(
        z
          .object({
            delivery_id: z.string(),
            event: z.string(),
            event_id: z.string(),
            status: z.enum(['queued', 'retrying', 'delivered', 'failed', 'dropped']),
            attempts: z.number().int(),
            next_attempt_at: z
              .string()
              .nullable()
              .describe('When the next attempt is due (queued or retrying)'),
            last_status_code: z.number().int().nullable(),
            last_error: z.string().nullable(),
            created_at: z.string(),
            finished_at: z.string().nullable(),
            attempt_log: z.array(
              z
                .object({
                  attempt: z.number().int(),
                  at: z.string(),
                  status_code: z.number().int().nullable(),
                  duration_ms: z.number().int(),
                  error: z.string().nullable(),
                })
                .strict(),
            ),
          })
          .strict(),
      ),
    })
    .strict(),
  price: null,
  ports: ['monitoring'],
  access: { sandbox: 'run' },
  run: async (input, ctx) => {
    const limit = input.limit ?? 50
    const offset = input.offset ?? 0
    const page = await monitoringOf(ctx).webhooks.deliveries(keyCallerOf(ctx).keyId, input.webhook_id, {
      limit,
      offset,
    })
    if (!page) throw new ServiceError('not_found', 'unknown webhook')
    return { webhook_id: input.webhook_id, total: page.total, limit, offset, deliveries: page.deliveries }
  },
})
