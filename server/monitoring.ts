import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Clock } from '../core/context.ts'
import type { MonitoringPort } from '../core/monitoring/monitoring-port.ts'
import { createSanctionsMonitor, type SanctionsMonitor } from '../core/monitoring/sanctions-monitor.ts'
import { createWatchlistStore } from '../core/monitoring/watchlist-store.ts'
import type { DismissalEvent } from '../core/sanctions/dismissal-store.ts'
import { createDismissalStore, type DismissalStore } from '../core/sanctions/dismissal-store.ts'
import { createSanctionsListStore } from '../core/sanctions/list-store.ts'
import type { Database } from '../core/store/database.ts'
import { deliverOnce } from '../core/webhooks/deliver.ts'
import { createDeliveryWorker, type DeliveryWorker } from '../core/webhooks/delivery-worker.ts'
import { createSecretBox, parseSecretKey, type SecretBox } from '../core/webhooks/secret-box.ts'
import { signBody } from '../core/webhooks/signing.ts'
import type { LoopbackReceiverOverride } from '../core/webhooks/url-guard.ts'
import { checkWebhookUrl } from '../core/webhooks/url-guard.ts'
import { createWebhookStore, type WebhookStore } from '../core/webhooks/webhook-store.ts'
import type { Config } from './config.ts'

type Log = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

/** The header deliveries carry their signature in (spec: Events rule 4, neutral name). */
export const SIGNATURE_HEADER = 'X-Service-Signature'

export interface Monitoring {
  port: MonitoringPort
  monitor: SanctionsMonitor
  webhooks: WebhookStore
  /** The keys' dismissed sanctions matches (screens, watchlist screens and alerts read them). */
  dismissals: DismissalStore
  worker: DeliveryWorker | undefined
  start(): void
  stop(): Promise<void>
}

export interface MonitoringOptions {
  /** Test-only loopback receivers (refused when NODE_ENV=production). */
  testReceivers?: LoopbackReceiverOverride
  instanceId: string
  /** Each dismissal created, replaced, deleted or re-opened (the composition root audits them). */
  onDismissalChange?: (event: DismissalEvent) => void | Promise<void>
}

/**
 * The webhook secret keys: WEBHOOK_SECRET_KEYS, else (embedded PGlite in a data folder only) a
 * key generated once into DATA_DIR/webhook-secret.key. Production requires the variable.
 */
export function webhookSecretBox(config: Config, embedded: boolean): SecretBox {
  if (config.WEBHOOK_SECRET_KEYS) {
    return createSecretBox(config.WEBHOOK_SECRET_KEYS.split(',').map((key) => parseSecretKey(key)))
  }
  if (config.NODE_ENV === 'production') {
    throw new Error('invalid configuration:\n  WEBHOOK_SECRET_KEYS: required when NODE_ENV=production')
  }
  if (embedded) {
    const file = path.join(config.DATA_DIR, 'webhook-secret.key')
    if (!existsSync(file)) {
      mkdirSync(config.DATA_DIR, { recursive: true })
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
    }
    return createSecretBox([parseSecretKey(readFileSync(file, 'utf8'))])
  }
  // A throwaway key (tests on an in-memory or scratch database): secrets do not outlive the process.
  return createSecretBox([randomBytes(32)])
}

export function buildMonitoring(
  config: Config,
  database: Database,
  clock: Clock,
  log: Log,
  box: SecretBox,
  options: MonitoringOptions,
): Monitoring {
  if (options.testReceivers && config.NODE_ENV === 'production') {
    throw new Error(
      'the loopback webhook receiver override is for tests only and refused when NODE_ENV=production',
    )
  }
  // The composition root re-checks what loadConfig refuses: a Config built another way (tests,
  // ConfigSchema.parse) must not open loopback http in production either.
  if (config.WEBHOOKS_ALLOW_HTTP_LOOPBACK && config.NODE_ENV === 'production') {
    throw new Error(
      'invalid configuration:\n  WEBHOOKS_ALLOW_HTTP_LOOPBACK: a development setting, refused when NODE_ENV=production',
    )
  }
  const testReceivers = options.testReceivers
  const guard = {
    ...(testReceivers ? { testReceivers } : {}),
    ...(config.WEBHOOKS_ALLOW_HTTP_LOOPBACK ? { allowHttpLoopback: true } : {}),
  }
  if (config.WEBHOOKS_ALLOW_HTTP_LOOPBACK) {
    log(
      'warn',
      'webhooks: plain http receivers on 127.0.0.1, localhost and [::1] are admitted (WEBHOOKS_ALLOW_HTTP_LOOPBACK=true, development only)',
    )
  }
  const webhooks = createWebhookStore({ db: database.db, box, clock })
  const watchlist = createWatchlistStore(database.db, clock, config.WATCHLIST_MAX_ENTRIES)
  const worker =
    config.WEBHOOK_WORKER === 'on'
      ? createDeliveryWorker({
          store: webhooks,
          signatureHeader: SIGNATURE_HEADER,
          deliver: guard,
          instanceId: options.instanceId,
          concurrency: config.WEBHOOK_CONCURRENCY,
          pollMs: config.WEBHOOK_POLL_MS,
          lockMs: config.WEBHOOK_CLAIM_LOCK_MS,
          log,
        })
      : undefined
  const dismissals = createDismissalStore({
    db: database.db,
    clock,
    ...(options.onDismissalChange ? { onChange: options.onDismissalChange } : {}),
  })
  const monitor = createSanctionsMonitor({
    db: database.db,
    clock,
    listStore: createSanctionsListStore(database.db, clock),
    watchlist,
    webhooks,
    dismissals,
    intervalMs: config.ALERTS_POLL_MS,
    onQueued: () => worker?.poke(),
    log,
  })
  const port: MonitoringPort = {
    monitor,
    watchlist,
    webhooks,
    checkUrl: (url) => checkWebhookUrl(url, guard),
    sendOnce: (url, body, secret) =>
      deliverOnce(url, body, { [SIGNATURE_HEADER]: signBody(secret, body) }, guard),
  }
  return {
    port,
    monitor,
    webhooks,
    dismissals,
    worker,
    start() {
      monitor.start()
      worker?.start()
    },
    async stop() {
      await monitor.stop()
      await worker?.stop()
    },
  }
}
