import type { CompanySources } from '../core/checks/index.ts'
import type { Clock } from '../core/context.ts'
import {
  createDnsProbe,
  createDnsResolver,
  createInMemoryKboStore,
  createKboImporter,
  createKboLookup,
  createKvkClient,
  createRdapClient,
  createTlsProbe,
  createViesClient,
  kboDirectorySource,
} from '../core/sources/index.ts'
import type { Config } from './config.ts'

type Log = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

/**
 * The real upstream adapters for company checks, from config. KVK needs an API key: without
 * one it is left out and reported `unavailable` / `not_configured` in every check. KBO open
 * data are imported at start-up from KBO_DATA_DIR into memory; without it the KBO source
 * answers `dataset_not_loaded`.
 */
export async function buildCompanySources(config: Config, clock: Clock, log: Log): Promise<CompanySources> {
  const common = { clock, timeoutMs: config.SOURCE_TIMEOUT_MS }
  const servers = config.DNS_SERVERS?.split(',')
    .map((server) => server.trim())
    .filter(Boolean)
  const kboStore = createInMemoryKboStore()
  if (config.KBO_DATA_DIR) {
    try {
      const stats = await createKboImporter({ store: kboStore, clock }).importExtract(
        kboDirectorySource(config.KBO_DATA_DIR),
      )
      log('info', 'KBO open data imported', stats)
    } catch (error) {
      log('warn', 'KBO open data not imported', String(error))
    }
  }
  return {
    ...(config.KVK_API_KEY
      ? { kvk: createKvkClient({ ...common, baseUrl: config.KVK_API_URL, apiKey: config.KVK_API_KEY }) }
      : {}),
    vies: createViesClient({ ...common, baseUrl: config.VIES_API_URL }),
    rdap: createRdapClient({ ...common, bootstrapUrl: config.RDAP_BOOTSTRAP_URL }),
    dns: createDnsProbe({
      ...common,
      resolver: createDnsResolver({
        ...(servers?.length ? { servers } : {}),
        timeoutMs: config.SOURCE_TIMEOUT_MS,
      }),
    }),
    tls: createTlsProbe(common),
    kbo: createKboLookup({ store: kboStore, clock }),
  }
}
