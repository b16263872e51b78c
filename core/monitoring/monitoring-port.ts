import type { AttemptResult } from '../webhooks/deliver.ts'
import type { UrlCheck } from '../webhooks/url-guard.ts'
import type { WebhookStore } from '../webhooks/webhook-store.ts'
import type { SanctionsMonitor } from './sanctions-monitor.ts'
import type { WatchlistStore } from './watchlist-store.ts'

/**
 * What the monitoring operations (alerts, watchlist, webhooks) need from the server: the
 * stores, the URL guard and one signed send. Built once in server/compose.ts.
 */
export interface MonitoringPort {
  monitor: Pick<SanctionsMonitor, 'alerts'>
  watchlist: WatchlistStore
  webhooks: WebhookStore
  /** The SSRF guard with the server's resolver (and, in tests only, the loopback override). */
  checkUrl(url: string): Promise<UrlCheck>
  /** One signed attempt, no retry (POST /v1/webhooks/{id}/test). */
  sendOnce(url: string, body: string, secret: string): Promise<AttemptResult>
}
