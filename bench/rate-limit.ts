/**
 * Rate-limiter overhead: `npm run bench:rate-limit -- [--db pglite|postgres]`
 *
 * Paid sanctions screens (POST /v1/sanctions/screen, a live enterprise key debited per call) on two
 * services started in the same run, one with RATE_LIMITS=on (limits set high enough never to
 * refuse, so every call pays the limiter's statement) and one with RATE_LIMITS=off. autocannon
 * (keep-alive, in a second process) loads them in turns: off, on, off, on, ...; the figures are the
 * median and mean requests per second of each and the ratios on / off (the limiter should keep >= 0.9):
 * on a shared machine single runs vary by a factor of two, so many short alternating runs and the
 * median are what can be compared. Steadier: the service's CPU time per request (its process
 * runs nothing else during a run), whose ratio off / on is the throughput ratio of a CPU-bound
 * service on a machine of its own. Also: the
 * limiter alone, one admission after another (PostgreSQL: the round trip a call adds when it is
 * alone; PGlite: the in-memory path), and statements for 1,000 concurrent calls of 10 keys
 * (PostgreSQL: concurrent calls share one statement; PGlite: one read per key, then none).
 * The lists are the UN (2026-02-27) and EU copies in ../shared/data/sanctions (OFAC off: a smaller
 * index makes each screen cheaper, so the limiter's share is, if anything, overstated).
 * Env: DURATION_S (default 5), CONNECTIONS (default 10), ROUNDS (default 5), SHARED_DIR.
 */

import { DEFAULT_RATE_LIMITS } from '../core/limits/rate-limit-policy.ts'
import { createRateLimiter } from '../core/limits/rate-limiter.ts'
import { usd } from '../core/money.ts'
import { createDatabase, type Database } from '../core/store/database.ts'
import { createService, type Service } from '../server/compose.ts'
import { countExecutes } from '../test/support/count-executes.ts'
import { createManualClock } from '../test/support/fakes/manual-clock.ts'
import { type HttpLoadFigures, runHttpLoad } from '../test/support/http-load.ts'
import { startTempPostgres } from '../test/support/postgres.ts'
import { EU_LEGACY_FILE, sanctionsDataPath, UN_FILES } from '../test/support/sanctions/shared-data.ts'
import { listen } from '../test/support/serve.ts'
import { testConfig } from '../test/support/test-config.ts'

const DURATION_S = Number(process.env.DURATION_S ?? 5)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10)
const ROUNDS = Number(process.env.ROUNDS ?? 5)
const round = (value: number, digits = 1) => Number(value.toFixed(digits))

/** A run's load figures, with the service's CPU time per request (user + system, µs). */
type LoadFigures = HttpLoadFigures & { cpu_us_per_request?: number }

/** One run of paid screens against a service with this key. */
const screens = (url: string, apiKey: string, duration: number): Promise<LoadFigures> =>
  runHttpLoad({
    url: `${url}/v1/sanctions/screen`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    bodies: BODIES,
    duration,
    connections: CONNECTIONS,
  })

/** Half names on the UN list, half on no list. */
const BODIES = Array.from({ length: 100 }, (_, i) =>
  JSON.stringify(
    i % 2 === 0
      ? { name: ['KHAWA PANGA MANDRO', 'Al-Qaida', 'Jaish-i-Mohammed'][i % 3] }
      : { name: `Unlisted Trading Company ${i}`, country: 'NL' },
  ),
)

async function main(): Promise<void> {
  const dbIndex = process.argv.indexOf('--db')
  const dbKind = dbIndex >= 0 ? process.argv[dbIndex + 1] : 'pglite'
  const postgres = dbKind === 'postgres' && !process.env.DATABASE_URL ? await startTempPostgres() : undefined
  const databaseUrl = dbKind === 'postgres' ? (process.env.DATABASE_URL ?? postgres?.url) : undefined
  const open = (): Promise<Database> => createDatabase(databaseUrl ? { url: databaseUrl } : {})
  try {
    const base = {
      PORT: '0',
      SANCTIONS_OFAC_SOURCE: 'off',
      SANCTIONS_EU_SOURCE: sanctionsDataPath(EU_LEGACY_FILE),
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: '0',
      // High enough never to refuse: every call runs the limiter's statement and is admitted.
      RATE_LIMIT_ENTERPRISE: '1000000000/0/0',
    }
    const variants = { off: { RATE_LIMITS: 'off' }, on: { RATE_LIMITS: 'on' } } as const
    const running: Record<string, { service: Service; url: string; apiKey: string; close(): Promise<void> }> =
      {}
    for (const [name, extra] of Object.entries(variants)) {
      const service = await createService(testConfig({ ...base, ...extra }), {
        database: await open(),
        log: () => {},
      })
      await service.runtime.deps.sanctionsLists?.idle()
      const server = await listen(service)
      const { apiKey } = await service.runtime.keys.create({
        email: `${name}@example.com`,
        tier: 'enterprise',
        balance: usd('1000000'),
      })
      running[name] = {
        service,
        url: server.baseUrl,
        apiKey,
        close: async () => {
          await server.close()
          await service.close()
        },
      }
    }
    // Warm both.
    for (const variant of Object.values(running)) {
      await screens(variant.url, variant.apiKey, 2)
    }
    const results: Record<string, LoadFigures[]> = { off: [], on: [] }
    for (let i = 0; i < ROUNDS; i++) {
      for (const name of ['off', 'on'] as const) {
        const variant = running[name] as (typeof running)[string]
        const cpu = process.cpuUsage()
        const figures = await screens(variant.url, variant.apiKey, DURATION_S)
        const used = process.cpuUsage(cpu)
        figures.cpu_us_per_request = Math.round((used.user + used.system) / Math.max(1, figures.total))
        results[name]?.push(figures)
      }
    }
    const mean = (figures: LoadFigures[], pick: (f: LoadFigures) => number) =>
      round(figures.reduce((total, f) => total + pick(f), 0) / figures.length)
    const median = (figures: LoadFigures[]) => {
      const sorted = figures.map((f) => f.requests_per_s).sort((a, b) => a - b)
      const middle = Math.floor(sorted.length / 2)
      return sorted.length % 2
        ? (sorted[middle] ?? 0)
        : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
    }
    const off = results.off as LoadFigures[]
    const on = results.on as LoadFigures[]

    // The limiter alone on this database: one admission after another, and statements per call
    // when many calls arrive at once.
    const db = (running.on as (typeof running)[string]).service.database.db
    let statements = 0
    const counting = countExecutes(db, () => {
      statements++
    })
    const limiter = createRateLimiter({
      db: counting,
      kind: dbKind === 'postgres' ? 'postgres' : 'pglite',
      clock: createManualClock(),
      policy: {
        ...DEFAULT_RATE_LIMITS,
        tiers: {
          ...DEFAULT_RATE_LIMITS.tiers,
          enterprise: { perMinute: 1e9, perDay: Infinity, perMonth: Infinity },
        },
      },
    })
    const caller = {
      kind: 'key',
      keyId: 'bench',
      tier: 'enterprise',
      mode: 'live',
      role: 'customer',
    } as const
    for (let i = 0; i < 100; i++) await limiter.admit(caller)
    const sequential: number[] = []
    for (let i = 0; i < 1000; i++) {
      const started = performance.now()
      await limiter.admit(caller)
      sequential.push(performance.now() - started)
    }
    sequential.sort((a, b) => a - b)
    statements = 0
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) => limiter.admit({ ...caller, keyId: `bench${i % 10}` })),
    )
    const concurrentStatements = statements

    console.log(
      JSON.stringify({
        command: `npm run bench:rate-limit -- --db ${dbKind}`,
        database: dbKind,
        connections: CONNECTIONS,
        duration_s: DURATION_S,
        rounds: ROUNDS,
        limits_off: {
          requests_per_s: mean(off, (f) => f.requests_per_s),
          p50_ms: mean(off, (f) => f.latency_ms.p50),
          p99_ms: mean(off, (f) => f.latency_ms.p99),
          non_2xx: off.reduce((t, f) => t + f.non_2xx, 0),
          runs: off.map((f) => f.requests_per_s),
        },
        limits_on: {
          requests_per_s: mean(on, (f) => f.requests_per_s),
          p50_ms: mean(on, (f) => f.latency_ms.p50),
          p99_ms: mean(on, (f) => f.latency_ms.p99),
          non_2xx: on.reduce((t, f) => t + f.non_2xx, 0),
          runs: on.map((f) => f.requests_per_s),
        },
        ratio_on_off_mean: round(mean(on, (f) => f.requests_per_s) / mean(off, (f) => f.requests_per_s), 3),
        ratio_on_off_median: round(median(on) / median(off), 3),
        // CPU per request does not depend on what else the machine runs: off / on is the
        // throughput ratio of a CPU-bound service on a machine of its own.
        cpu_us_per_request: {
          off: mean(off, (f) => f.cpu_us_per_request ?? 0),
          on: mean(on, (f) => f.cpu_us_per_request ?? 0),
        },
        cpu_ratio_off_on: round(
          mean(off, (f) => f.cpu_us_per_request ?? 0) / mean(on, (f) => f.cpu_us_per_request ?? 0),
          3,
        ),
        limiter_alone: {
          sequential_admit_ms: { p50: round(sequential[500] ?? 0, 3), p99: round(sequential[990] ?? 0, 3) },
          statements_for_1000_concurrent_calls: concurrentStatements,
        },
      }),
    )
    for (const variant of Object.values(running)) await variant.close()
  } finally {
    postgres?.stop()
  }
}

await main()
