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
 * CPU: the process's own CPU time (user + system: the service and its database; autocannon runs
 * in another process) per request of each screen run, which a machine shared with other work
 * changes far less than requests per second.
 * Env: DURATION_S (default 10), CONNECTIONS (default 10), SHARED_DIR; SANCTIONS_HTTP_CPU_PROF=<folder>
 * writes a CPU profile of each screen run there (exact-screen.cpuprofile, fuzzy-screen.cpuprofile).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { loadavg } from 'node:os'
import path from 'node:path'
import { PRICES } from '../core/payments/pricing.ts'
import { createService } from '../server/compose.ts'
import { type HttpLoadFigures, runHttpLoad } from '../test/support/http-load.ts'
import { listen } from '../test/support/serve.ts'
import { testConfig } from '../test/support/test-config.ts'
import { benchDatabase } from './support/bench-database.ts'
import { warmThenMeasure } from './support/paid-load.ts'
import { createBenchKey, screenBodiesOn, threeListEnv } from './support/three-lists.ts'

const DURATION_S = Number(process.env.DURATION_S ?? 10)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10)

const round = (value: number, digits = 1) => Number(value.toFixed(digits))

/**
 * Runs one measured load with this process's CPU time counted (and, with SANCTIONS_HTTP_CPU_PROF,
 * profiled by the inspector's sampling profiler): returns the figures and CPU ms per request.
 */
async function measured<T extends HttpLoadFigures>(
  label: string,
  run: () => Promise<T>,
): Promise<{ figures: T; cpuMsPerRequest: number }> {
  const profileDir = process.env.SANCTIONS_HTTP_CPU_PROF
  const session = profileDir ? new Session() : undefined
  if (session) {
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.start')
  }
  const cpuAtStart = process.cpuUsage()
  const figures = await run()
  const used = process.cpuUsage(cpuAtStart)
  if (session) {
    const { profile } = await session.post('Profiler.stop')
    mkdirSync(profileDir!, { recursive: true })
    writeFileSync(path.join(profileDir!, `${label}.cpuprofile`), JSON.stringify(profile))
    session.disconnect()
  }
  const cpuMsPerRequest = round((used.user + used.system) / 1000 / Math.max(1, figures.total), 3)
  return { figures, cpuMsPerRequest }
}

async function main(): Promise<void> {
  const database = await benchDatabase('sanctions-http-bench-')
  const dbKind = database.kind
  const open = database.open
  try {
    const config = testConfig(await threeListEnv())
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
    const key = await createBenchKey(server.baseUrl, 'enterprise', '1000000')
    const common = { duration: DURATION_S, connections: CONNECTIONS }
    const screenLoad = (match: 'exact' | 'fuzzy') =>
      runHttpLoad({
        ...common,
        url: `${server.baseUrl}/v1/sanctions/screen`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.api_key },
        bodies: screenBodiesOn(service, { match, misspelled: true }),
      })
    // The fuzzy index is built once the lists have settled, off the request path: build it now, as
    // a user's first fuzzy screen right after start-up would not (bench/matching-speed.ts times it).
    await fetch(`${server.baseUrl}/v1/sanctions/screen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key.api_key },
      body: JSON.stringify({ name: 'Lazarus Group', match: 'fuzzy' }),
    })
    const before = (await service.runtime.keys.get(key.key_id))!
    const health = await warmThenMeasure({ ...common, url: `${server.baseUrl}/health`, method: 'GET' })
    const exactRun = await measured('exact-screen', () => screenLoad('exact'))
    const fuzzyRun = await measured('fuzzy-screen', () => screenLoad('fuzzy'))
    const screen = exactRun.figures
    const fuzzy = fuzzyRun.figures
    const loadAverage = loadavg().map((value) => round(value, 2))
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
        load_average: loadAverage,
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
          cpu_ms_per_request: { screen: exactRun.cpuMsPerRequest, fuzzy_screen: fuzzyRun.cpuMsPerRequest },
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
    database.cleanup()
  }
}

await main()
