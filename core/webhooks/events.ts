import { z } from 'zod'

/**
 * Webhook event names (spec: Events table). Only these may be registered (422 otherwise, no
 * wildcard); only `sanctions.match.new` is sent today.
 */
export const WEBHOOK_EVENTS = [
  'sanctions.match.new',
  'trust.score.changed',
  'trust.level.downgrade',
  'certificate.expired',
] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

/** The events actually delivered today (`delivered_events` of a webhook). */
export const DELIVERED_EVENTS: readonly WebhookEvent[] = ['sanctions.match.new']

export const WebhookEventSchema = z
  .enum(WEBHOOK_EVENTS)
  .describe(
    'sanctions.match.new (sent today); trust.score.changed, trust.level.downgrade, certificate.expired (registrable, not sent yet)',
  )

/** Spec: Limits, webhooks. */
export const WEBHOOK_LIMITS = {
  timeoutMs: 10_000,
  maxAttempts: 6,
  firstBackoffMs: 30_000,
  jitter: 0.2,
  deactivateAfterFailedEvents: 10,
} as const

/**
 * Delay before attempt `nextAttempt` (2..6): 30 s doubling (30, 60, 120, 240, 480 s) plus up to
 * 20% random jitter (spec: Limits, webhooks).
 */
export function backoffMs(nextAttempt: number, random: () => number = Math.random): number {
  const base = WEBHOOK_LIMITS.firstBackoffMs * 2 ** Math.max(0, nextAttempt - 2)
  return Math.round(base * (1 + WEBHOOK_LIMITS.jitter * random()))
}
