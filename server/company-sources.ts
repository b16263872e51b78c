import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { CompanySources } from '../core/checks/index.ts'
import type { Clock } from '../core/context.ts'
import {
  type CircuitBreaker,
  createDnsProbe,
  createDnsResolver,
  createKboImporter,
  createKboLookup,
  createKvkClient,
  createRdapClient,
  createTlsProbe,
  createViesClient,
  kboDirectorySource,
} from '../core/sources/index.ts'
import type { Db } from '../core/store/database.ts'
import { createKboDatabaseStore } from '../core/store/kbo-database-store.ts'
import type { Config } from './config.ts'

/** Shared circuit breakers of the company sources, so GET /v1/providers can report their state. */
export type CompanySourceBreakers = Partial<
  Record<'kvk' | 'kbo' | 'vies' | 'rdap' | 'dns' | 'tls', CircuitBreaker>
>

type Log = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

/**
 * The real upstream adapters for company checks, from config. KVK needs an API key: without
 * one it is left out and reported `unavailable` / `not_configured` in every check. The KBO open
 * data live in the database; with KBO_DATA_DIR an extract there is imported in the background
 * at start-up unless the database already holds that extract (until a first import the KBO
 * source answers `dataset_not_loaded`).
 */
export async function buildCompanySources(
  config: Config,
  clock: Clock,
  log: Log,
  db: Db,
  breakers: CompanySourceBreakers = {},
): Promise<CompanySources> {
  const common = { clock, timeoutMs: config.SOURCE_TIMEOUT_MS }
  const withBreaker = (key: keyof CompanySourceBreakers) => (breakers[key] ? { breaker: breakers[key] } : {})
  const servers = config.DNS_SERVERS?.split(',')
    .map((server) => server.trim())
    .filter(Boolean)
  const kboStore = createKboDatabaseStore(db)
  let kboImporting = false
  if (config.KBO_DATA_DIR) {
    const directory = config.KBO_DATA_DIR
    kboImporting = true
    void importKboIfNew(directory, kboStore, clock)
      .then(
        (stats) => stats && log('info', 'KBO open data imported', stats),
        (error) => log('warn', 'KBO open data not imported', String(error)),
      )
      .finally(() => {
        kboImporting = false
      })
  }
  return {
    ...(config.KVK_API_KEY
      ? {
          kvk: createKvkClient({
            ...common,
            ...withBreaker('kvk'),
            baseUrl: config.KVK_API_URL,
            apiKey: config.KVK_API_KEY,
          }),
        }
      : {}),
    vies: createViesClient({ ...common, ...withBreaker('vies'), baseUrl: config.VIES_API_URL }),
    rdap: createRdapClient({ ...common, ...withBreaker('rdap'), bootstrapUrl: config.RDAP_BOOTSTRAP_URL }),
    dns: createDnsProbe({
      ...common,
      ...withBreaker('dns'),
      resolver: createDnsResolver({
        ...(servers?.length ? { servers } : {}),
        timeoutMs: config.SOURCE_TIMEOUT_MS,
      }),
    }),
    tls: createTlsProbe({ ...common, ...withBreaker('tls') }),
    kbo: createKboLookup({ store: kboStore, clock, ...withBreaker('kbo'), importing: () => kboImporting }),
  }
}

/** Imports the extract in `directory` unless the store already holds the same extract number. */
export async function importKboIfNew(
  directory: string,
  store: ReturnType<typeof createKboDatabaseStore>,
  clock: Clock,
) {
  const meta = await readFile(path.join(directory, 'meta.csv'), 'utf8')
  const extract = /"?ExtractNumber"?\s*,\s*"?(\w+)"?/.exec(meta)?.[1] ?? null
  const current = await store.getImportState()
  if (extract !== null && current?.extract_number === extract) return null
  return createKboImporter({ store, clock }).importExtract(kboDirectorySource(directory))
}
