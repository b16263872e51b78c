/**
 * Sanctions service benchmark over HTTP: `npm run bench:sanctions-http -- [--db pglite|postgres]`
 *
 * Prints one JSON line:
 * - first_load: the service starts on an empty database with all three full lists as file sources
 *   (OFAC SDN Advanced 2025-11-19, legacy EU, UN 2026-02-27) and its first refresh reads, parses,
 *   diffs and stores them (the OFAC .bz2 is decompressed to a temp file beforehand, untimed);
 * - http: requests per second with keep-alive, measured by autocannon in a SECOND process, for
 *   GET /health, POST /v1/sanctions/screen (live key with a large balance, a mix of listed,
 *   misspelled and unlisted names) and the same bodies with "match": "fuzzy", same connections
 *   and duration, one after the other in the same run; the ratios screen / health (target >=
 *   0.6) and fuzzy / exact; and a money check: the key lost exactly (successful screens of
 *   both modes x the account price, the same for both);
 * - restart: the service is closed and started again on the same database; time until the index
 *   is ready (target < 1 s), without reading any list source.
 * Env: DURATION_S (default 10), CONNECTIONS (default 10), SHARED_DIR.
 */
import { spawnSync } from 'node:child_process'
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { PRICES } from '../core/payments/pricing.ts'
import { bz2Decompress } from '../core/sanctions/list-source.ts'
import { nameTokens } from '../core/sanctions/name-normaliser.ts'
import { createDatabase, type Database } from '../core/store/database.ts'
import { createService, type Service } from '../server/compose.ts'
import { runHttpLoad } from '../test/support/http-load.ts'
import { startTempPostgres } from '../test/support/postgres.ts'
import { sanctionsDataDir } from '../test/support/sanctions/shared-data.ts'
import { listen } from '../test/support/serve.ts'
import { testConfig } from '../test/support/test-config.ts'

const dataDir = sanctionsDataDir()
const OFAC_BZ2 = path.join(dataDir, 'ofac/sdn_advanced/2025-11-19/sdn_advanced.xml.bz2')
const EU_FILE = path.join(dataDir, 'eu/legacy-2016-02-11/data.xml')
const UN_FILE = path.join(dataDir, 'un/2026-02-27/UN_consolidated.xml')
const ADMIN_KEY = 'svc_admin_bench_0123456789abcdefghij'
const DURATION_S = Number(process.env.DURATION_S ?? 10)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10)

const round = (value: number, digits = 1) => Number(value.toFixed(digits))

async function decompressOfac(dir: string): Promise<string> {
  const target = path.join(dir, 'sdn_advanced.xml')
  const system = spawnSync('sh', ['-c', `bzip2 -dc "${OFAC_BZ2}" > "${target}"`])
  if (system.status === 0 && existsSync(target) && statSync(target).size > 0) return target
  await pipeline(bz2Decompress(readFileSync(OFAC_BZ2)), createWriteStream(target))
  return target
}

/**
 * Half listed names (some with words reordered, some with one letter left out, which only the
 * fuzzy mode finds), half names on no list; `match` says the mode.
 */
function screenBodies(service: Service, match: 'exact' | 'fuzzy'): string[] {
  const lists = service.runtime.deps.sanctionsLists!
  const names: string[] = []
  const probe = ['Lazarus Group', 'GARANTEX EUROPE OU', 'KHAWA PANGA MANDRO', 'Semenov, Roman']
  for (const name of probe) if (lists.screenName(name).status === 'ok') names.push(name)
  const bodies: string[] = []
  for (let i = 0; i < 200; i++) {
    if (i % 2 === 0) {
      const name = names[i % names.length]!
      const written =
        i % 6 === 0
          ? name
          : i % 6 === 2
            ? nameTokens(name).reverse().join(' ')
            : name.replace(/[aeiou](?=[a-z]*$)/i, '')
      bodies.push(JSON.stringify({ name: written, match }))
    } else {
      bodies.push(JSON.stringify({ name: `Unlisted Trading Company ${i}`, country: 'NL', match }))
    }
  }
  return bodies
}

async function main(): Promise<void> {
  const dbIndex = process.argv.indexOf('--db')
  const dbKind = dbIndex >= 0 ? process.argv[dbIndex + 1] : 'pglite'
  const dir = mkdtempSync(path.join(tmpdir(), 'sanctions-http-bench-'))
  const postgres = dbKind === 'postgres' && !process.env.DATABASE_URL ? await startTempPostgres() : undefined
  const databaseUrl = dbKind === 'postgres' ? (process.env.DATABASE_URL ?? postgres!.url) : undefined
  const open = (): Promise<Database> =>
    createDatabase(databaseUrl ? { url: databaseUrl } : { dataDir: path.join(dir, 'pglite') })
  try {
    const ofacXml = await decompressOfac(dir)
    const config = testConfig({
      ADMIN_API_KEY: ADMIN_KEY,
      PORT: '0',
      SANCTIONS_OFAC_SOURCE: ofacXml,
      SANCTIONS_EU_SOURCE: EU_FILE,
      SANCTIONS_UN_SOURCE: UN_FILE,
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: '0',
      // Measures screening throughput, not the limiter (bench/rate-limit.ts does).
      RATE_LIMITS: 'off',
    })
    let sourceReads = 0
    let dbLoadMs: number | undefined
    const log = (_level: string, message: string, extra?: unknown) => {
      if (message === 'sanctions list updated') sourceReads++
      if (message === 'sanctions lists loaded from the database') dbLoadMs = (extra as { ms: number }).ms
    }

    // First start: empty database, lists read from the files, parsed and stored.
    const firstStart = performance.now()
    const service = await createService(config, { database: await open(), log })
    await service.runtime.deps.sanctionsLists!.idle()
    const firstLoadMs = performance.now() - firstStart
    const lists = service.runtime.deps.sanctionsLists!.loadedLists()
    if (lists.length !== 3) throw new Error(`expected 3 lists, got ${lists.length}`)

    const server = await listen(service)
    const created = await fetch(`${server.baseUrl}/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
      body: JSON.stringify({ email: 'bench@example.com', tier: 'enterprise', balance_usd: '1000000' }),
    })
    const key = (await created.json()) as { api_key: string; key_id: string }
    const common = { duration: DURATION_S, connections: CONNECTIONS }
    const screenLoad = (match: 'exact' | 'fuzzy') =>
      runHttpLoad({
        ...common,
        url: `${server.baseUrl}/v1/sanctions/screen`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.api_key },
        bodies: screenBodies(service, match),
      })
    // The fuzzy index is built right after a list rebuild, off the request path: wait for it as a
    // user's first fuzzy screen after start-up would not (bench/matching-speed.ts times the build).
    await fetch(`${server.baseUrl}/v1/sanctions/screen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key.api_key },
      body: JSON.stringify({ name: 'Lazarus Group', match: 'fuzzy' }),
    })
    const before = (await service.runtime.keys.get(key.key_id))!
    await runHttpLoad({ ...common, duration: 2, url: `${server.baseUrl}/health`, method: 'GET' })
    const health = await runHttpLoad({ ...common, url: `${server.baseUrl}/health`, method: 'GET' })
    const screen = await screenLoad('exact')
    const fuzzy = await screenLoad('fuzzy')
    const after = (await service.runtime.keys.get(key.key_id))!
    const charged = before.balanceMicros - after.balanceMicros
    const debited = after.callCount - before.callCount
    // autocannon stops counting at the deadline; the requests still in flight were served too.
    const answered = screen.total - screen.non_2xx + fuzzy.total - fuzzy.non_2xx
    const moneyExact =
      charged === debited * PRICES.sanctions_screen.account.fresh &&
      after.spentMicros - before.spentMicros === charged &&
      debited >= BigInt(answered) &&
      debited <= BigInt(answered + 2 * CONNECTIONS)
    await server.close()
    await service.close()

    // Restart on the same database: the index comes from the stored versions.
    const readsBefore = sourceReads
    const restartStart = performance.now()
    const restarted = await createService(config, { database: await open(), log })
    const restartMs = performance.now() - restartStart
    const ready = restarted.runtime.deps.sanctionsLists!.ready()
    await restarted.runtime.deps.sanctionsLists!.idle()
    const restartSourceReads = sourceReads - readsBefore
    await restarted.close()

    console.log(
      JSON.stringify({
        command: `npm run bench:sanctions-http -- --db ${dbKind}`,
        database: dbKind,
        lists: lists.map((list) => ({
          list_key: list.list_key,
          as_of: list.as_of,
          entries: list.entry_count,
        })),
        first_load_ms: round(firstLoadMs),
        http: {
          connections: CONNECTIONS,
          duration_s: DURATION_S,
          health,
          screen,
          fuzzy_screen: fuzzy,
          ratio: round(screen.requests_per_s / health.requests_per_s, 3),
          fuzzy_exact_ratio: round(fuzzy.requests_per_s / screen.requests_per_s, 3),
          money_exact: moneyExact,
          charged_micros: charged.toString(),
          debited_calls: Number(debited),
          answered_calls: answered,
        },
        restart: {
          service_start_ms: round(restartMs),
          sanctions_load_ms: dbLoadMs,
          ready,
          source_reads: restartSourceReads,
        },
        rss_mb: round(process.memoryUsage().rss / 1e6),
      }),
    )
  } finally {
    postgres?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
