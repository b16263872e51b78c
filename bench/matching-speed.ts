/**
 * Name-matching speed, exact and fuzzy side by side in one run: `npm run bench:matching-speed`
 *
 * Prints one JSON line:
 * - fuzzy_index: build time and the memory it adds (heap and RSS after a forced GC, before and
 *   after building it over the three full lists: OFAC SDN Advanced 2025-11-19, legacy EU, UN
 *   2026-02-27), with its vocabulary and name counts;
 * - in_process: per-screen latency (mean, median, p95, p99, in ms) of screenName (exact) and
 *   screenNameFuzzy (default threshold) over the same queries, interleaved (a quarter listed
 *   names, a quarter typos and other spellings, half names on no list; from the evaluation
 *   generator, seed 3), three rounds, as a service runs them: the fuzzy screen remembers what
 *   each word it saw pairs with (its word memos), so later rounds find most words remembered;
 *   fuzzy_cold_ms: the same queries once more with the memos forgotten before each screen
 *   (every word compared afresh: a name made only of words no earlier screen had); the
 *   *_cpu_ms_mean figures are the same screens' mean CPU time on the main thread
 *   (process.threadCpuUsage), which a shared machine's other processes do not lengthen as they
 *   lengthen wall-clock time;
 * - word_memos: what the memos hold after 3,600 more queries (seed 2), and its heap share;
 * - http: POST /v1/sanctions/screen with a live key over keep-alive (autocannon in a second
 *   process, CONNECTIONS connections for DURATION_S seconds each), exact bodies then fuzzy
 *   bodies, on one service (PGlite) holding the three lists.
 * Env: DURATION_S (default 10), CONNECTIONS (default 10), SHARED_DIR.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  forgetFuzzyWordMemos,
  fuzzyIndexOf,
  fuzzyWordMemoHolding,
  screenNameFuzzy,
} from '../core/sanctions/fuzzy-screen.ts'
import { buildSanctionsIndexFromEntries } from '../core/sanctions/sanctions-index.ts'
import { screenName } from '../core/sanctions/sanctions-screen.ts'
import { createDatabase } from '../core/store/database.ts'
import { createService } from '../server/compose.ts'
import { runHttpLoad } from '../test/support/http-load.ts'
import {
  EU_LEGACY_FILE,
  OFAC_ADVANCED,
  readBz2,
  sanctionsDataPath,
  UN_FILES,
} from '../test/support/sanctions/shared-data.ts'
import { listen } from '../test/support/serve.ts'
import { testConfig } from '../test/support/test-config.ts'
import { generateEvaluationSet } from './matching/evaluation-set.ts'
import { loadListEntries } from './matching/list-entries.ts'

const ADMIN_KEY = 'svc_admin_bench_0123456789abcdefghij'
const DURATION_S = Number(process.env.DURATION_S ?? 10)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10)
const round = (value: number, digits = 2) => Number(value.toFixed(digits))
/**
 * CPU time of this thread so far, in ms (user + system): process.threadCpuUsage (Node 23.9 and
 * later; the installed Node types predate it), else the whole process's.
 */
const threadCpu = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage
const threadCpuMs = () => {
  const usage = threadCpu ? threadCpu.call(process) : process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return {
    // Throughput follows the mean (one thread serves the screens), latency the percentiles.
    mean: round(values.reduce((sum, value) => sum + value, 0) / values.length, 3),
    median: round(percentile(sorted, 50), 3),
    p95: round(percentile(sorted, 95), 3),
    p99: round(percentile(sorted, 99), 3),
  }
}

const cpuMean = (values: number[]) => round(values.reduce((sum, value) => sum + value, 0) / values.length, 3)

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:matching-speed does)')
  gc()
  gc()
}

async function main(): Promise<void> {
  const { entries, lists } = await loadListEntries()
  const index = buildSanctionsIndexFromEntries(entries, lists)
  collect()
  // Typed arrays live outside the JS heap: count heap and external (ArrayBuffer) memory.
  const used = () => process.memoryUsage().heapUsed + process.memoryUsage().external
  const heapBefore = used()
  const rssBefore = process.memoryUsage().rss
  const buildStart = performance.now()
  const fuzzy = fuzzyIndexOf(index)
  const buildMs = performance.now() - buildStart
  collect()
  const heapAdded = used() - heapBefore
  const rssAdded = process.memoryUsage().rss - rssBefore

  const set = generateEvaluationSet(entries, { seed: 3, perPositiveKind: 40, perNegativeKind: 80 })
  const names = set.queries.map((query) => query.name)
  for (const name of names.slice(0, 200)) {
    screenName(index, name)
    screenNameFuzzy(index, name)
  }
  const exactMs: number[] = []
  const fuzzyMs: number[] = []
  const exactCpuMs: number[] = []
  const fuzzyCpuMs: number[] = []
  for (let round = 0; round < 3; round++) {
    for (const name of names) {
      let cpu = threadCpuMs()
      let start = performance.now()
      screenName(index, name)
      exactMs.push(performance.now() - start)
      exactCpuMs.push(threadCpuMs() - cpu)
      cpu = threadCpuMs()
      start = performance.now()
      screenNameFuzzy(index, name)
      fuzzyMs.push(performance.now() - start)
      fuzzyCpuMs.push(threadCpuMs() - cpu)
    }
  }

  const fuzzyColdMs: number[] = []
  const fuzzyColdCpuMs: number[] = []
  for (const name of names) {
    forgetFuzzyWordMemos(index)
    const cpu = threadCpuMs()
    const start = performance.now()
    screenNameFuzzy(index, name)
    fuzzyColdMs.push(performance.now() - start)
    fuzzyColdCpuMs.push(threadCpuMs() - cpu)
  }
  // The memos' memory once thousands of other names were screened (bounded by cost units).
  for (const query of generateEvaluationSet(entries, { seed: 2, perPositiveKind: 300, perNegativeKind: 300 })
    .queries) {
    screenNameFuzzy(index, query.name)
  }
  collect()
  const withMemos = used()
  const holding = fuzzyWordMemoHolding(index)
  forgetFuzzyWordMemos(index)
  collect()
  const memoMb = (withMemos - used()) / 1e6

  // Over HTTP: one service with the three lists, a live key, exact then fuzzy bodies.
  const dir = mkdtempSync(path.join(tmpdir(), 'matching-speed-'))
  try {
    const ofacXml = path.join(dir, 'sdn_advanced.xml')
    writeFileSync(ofacXml, await readBz2(OFAC_ADVANCED['2025-11-19']))
    const config = testConfig({
      ADMIN_API_KEY: ADMIN_KEY,
      PORT: '0',
      SANCTIONS_OFAC_SOURCE: ofacXml,
      SANCTIONS_EU_SOURCE: sanctionsDataPath(EU_LEGACY_FILE),
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: '0',
      RATE_LIMITS: 'off',
    })
    const service = await createService(config, {
      database: await createDatabase({ dataDir: path.join(dir, 'pglite') }),
    })
    await service.runtime.deps.sanctionsLists!.idle()
    // The first fuzzy screen builds (or finds warm) the fuzzy index.
    service.runtime.deps.sanctionsLists!.screenNameFuzzy('warm up')
    const server = await listen(service)
    const created = await fetch(`${server.baseUrl}/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
      body: JSON.stringify({ email: 'bench@example.com', tier: 'enterprise', balance_usd: '1000000' }),
    })
    const key = (await created.json()) as { api_key: string }
    const sample = names.filter((_, i) => i % Math.max(1, Math.floor(names.length / 200)) === 0).slice(0, 200)
    const load = (match: 'exact' | 'fuzzy') =>
      runHttpLoad({
        duration: DURATION_S,
        connections: CONNECTIONS,
        url: `${server.baseUrl}/v1/sanctions/screen`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.api_key },
        bodies: sample.map((name) =>
          JSON.stringify(
            match === 'fuzzy' ? { name: name.slice(0, 255), match } : { name: name.slice(0, 255) },
          ),
        ),
      })
    await runHttpLoad({
      duration: 2,
      connections: CONNECTIONS,
      url: `${server.baseUrl}/health`,
      method: 'GET',
    })
    const exactHttp = await load('exact')
    const fuzzyHttp = await load('fuzzy')
    await server.close()
    await service.close()

    console.log(
      JSON.stringify({
        command: 'npm run bench:matching-speed',
        lists: lists.map((list) => ({ list_key: list.list_key, entries: list.entry_count })),
        fuzzy_index: {
          names: fuzzy.nameCount,
          name_parts: fuzzy.partToken.length,
          vocabulary: fuzzy.tokens.length,
          build_ms: round(buildMs, 0),
          heap_and_external_added_mb: round(heapAdded / 1e6, 1),
          rss_added_mb: round(rssAdded / 1e6, 1),
        },
        in_process: {
          queries: exactMs.length,
          exact_ms: summary(exactMs),
          fuzzy_ms: summary(fuzzyMs),
          fuzzy_cold_ms: summary(fuzzyColdMs),
          // Means only: the thread's CPU clock advances in scheduler ticks (4 ms here), so one
          // screen reads 0 or a tick; summed over the 1,920 (or 640) screens it is exact enough.
          exact_cpu_ms_mean: cpuMean(exactCpuMs),
          fuzzy_cpu_ms_mean: cpuMean(fuzzyCpuMs),
          fuzzy_cold_cpu_ms_mean: cpuMean(fuzzyColdCpuMs),
        },
        word_memos: { ...holding, heap_mb: round(memoMb, 1) },
        http: {
          connections: CONNECTIONS,
          duration_s: DURATION_S,
          exact: exactHttp,
          fuzzy: fuzzyHttp,
          ratio: round(fuzzyHttp.requests_per_s / exactHttp.requests_per_s, 3),
        },
      }),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
