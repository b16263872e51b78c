import type { SanctionsNameScreen } from '../core/checks/sanctions-name-screen.ts'
import type { Clock } from '../core/context.ts'
import {
  createSanctionsListStore,
  createSanctionsNameScreen,
  createSanctionsService,
  LIST_KEYS,
  type ListKey,
  type ListProgressEvent,
  type SanctionsService,
} from '../core/sanctions/index.ts'
import type { Database } from '../core/store/database.ts'
import type { Config } from './config.ts'

type Log = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

/**
 * The official download URLs (plain XML, no key needed):
 * - OFAC SDN, Sanctions List Service, SDN Advanced XML (~120 MB);
 * - EU Financial Sanctions Files, full list in the FSF 1.1 schema (the token is the EU's fixed
 *   public download token);
 * - UN Security Council Consolidated List.
 */
export const OFFICIAL_SANCTIONS_SOURCES: Readonly<Record<ListKey, string>> = {
  ofac_sdn: 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN_ADVANCED.XML',
  eu: 'https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw',
  un: 'https://scsanctions.un.org/resources/xml/en/consolidated.xml',
}

const SOURCE_VARIABLES: Readonly<Record<ListKey, keyof Config>> = {
  ofac_sdn: 'SANCTIONS_OFAC_SOURCE',
  eu: 'SANCTIONS_EU_SOURCE',
  un: 'SANCTIONS_UN_SOURCE',
}

/**
 * Where each list is refreshed from: the configured URL or path; `official` for the official
 * URL; `off` (or `none`) for no refresh. Unset means SANCTIONS_DEFAULT_SOURCE: `official` by
 * default, so a first `npm start` serves real lists wherever the network allows;
 * tests and benchmarks set it to `off` and never reach the internet.
 */
export function sanctionsSources(config: Config): Partial<Record<ListKey, string>> {
  const byDefault = config.SANCTIONS_DEFAULT_SOURCE === 'official'
  const sources: Partial<Record<ListKey, string>> = {}
  for (const key of LIST_KEYS) {
    const value = (config[SOURCE_VARIABLES[key]] as string | undefined)?.trim()
    const lowered = value?.toLowerCase()
    if (lowered === 'off' || lowered === 'none') continue
    if (lowered === 'official' || (value === undefined && byDefault))
      sources[key] = OFFICIAL_SANCTIONS_SOURCES[key]
    else if (value) sources[key] = value
  }
  return sources
}

/**
 * Prints the progress of a list being read (start-up downloads of ~120 MB take a while): the
 * download every 5 s per list with bytes and percentage, then parse and store (the refresher
 * logs the outcome).
 */
export function progressLogger(log: Log, everyMs = 5000): (event: ListProgressEvent) => void {
  const lastPrinted = new Map<ListKey, number>()
  const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10
  return (event) => {
    if (event.phase === 'download') {
      const now = Date.now()
      const last = lastPrinted.get(event.list_key)
      if (last !== undefined && now - last < everyMs && event.received !== event.total) return
      lastPrinted.set(event.list_key, now)
      log('info', 'sanctions list downloading', {
        list: event.list_key,
        received_mb: mb(event.received),
        ...(event.total
          ? { total_mb: mb(event.total), percent: Math.floor((event.received / event.total) * 100) }
          : {}),
      })
    } else if (event.phase === 'done') {
      // The refresher logs the outcome itself (updated, unchanged or failed with the reason).
      lastPrinted.delete(event.list_key)
    } else {
      log('info', event.phase === 'parse' ? 'sanctions list parsing' : 'sanctions list storing', {
        list: event.list_key,
        size_mb: mb(event.bytes),
      })
    }
  }
}

/** The per-list freshness thresholds (SANCTIONS_MAX_AGE_DAYS_*). */
export function maxListAgeDays(config: Config): Record<ListKey, number> {
  return {
    ofac_sdn: config.SANCTIONS_MAX_AGE_DAYS_OFAC,
    eu: config.SANCTIONS_MAX_AGE_DAYS_EU,
    un: config.SANCTIONS_MAX_AGE_DAYS_UN,
  }
}

export interface Sanctions {
  service: SanctionsService
  /** The company checks' port over the same lists. */
  port: SanctionsNameScreen
}

/**
 * The sanctions lists over the service database: loaded from the last stored versions at
 * start-up, refreshed in the background from the configured sources (one process at a time).
 */
export function buildSanctions(config: Config, database: Database, clock: Clock, log: Log): Sanctions {
  const service = createSanctionsService({
    store: createSanctionsListStore(database.db, clock),
    clock,
    sources: sanctionsSources(config),
    downloadTimeoutMs: config.SANCTIONS_DOWNLOAD_TIMEOUT_MS,
    refreshIntervalMs: config.SANCTIONS_REFRESH_HOURS * 3_600_000,
    keepVersions: config.SANCTIONS_KEEP_VERSIONS,
    startupRefreshDelayMs: config.SANCTIONS_STARTUP_REFRESH_DELAY_MS,
    maxAgeDays: maxListAgeDays(config),
    log,
    onProgress: progressLogger(log),
  })
  return { service, port: createSanctionsNameScreen(service) }
}
