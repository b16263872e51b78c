import type { SanctionsNameScreen } from '../core/checks/sanctions-name-screen.ts'
import type { Clock } from '../core/context.ts'
import {
  createSanctionsListStore,
  createSanctionsNameScreen,
  createSanctionsService,
  LIST_KEYS,
  type ListKey,
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
 * URL; `off` (or `none`) for no refresh. Unset means the official URL when NODE_ENV=production
 * and no refresh otherwise, so development and tests never reach the internet by default.
 */
export function sanctionsSources(config: Config): Partial<Record<ListKey, string>> {
  const production = config.NODE_ENV === 'production'
  const sources: Partial<Record<ListKey, string>> = {}
  for (const key of LIST_KEYS) {
    const value = (config[SOURCE_VARIABLES[key]] as string | undefined)?.trim()
    const lowered = value?.toLowerCase()
    if (lowered === 'off' || lowered === 'none') continue
    if (lowered === 'official' || (value === undefined && production))
      sources[key] = OFFICIAL_SANCTIONS_SOURCES[key]
    else if (value) sources[key] = value
  }
  return sources
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
    log,
  })
  return { service, port: createSanctionsNameScreen(service) }
}
