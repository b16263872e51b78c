/**
 * Sanctions engine benchmark: `npm run bench:sanctions-index`
 *
 * Prints one JSON line of figures:
 * (a) parse + index of all three lists (OFAC SDN Advanced 2025-11-19, legacy EU, UN 2026-02-27):
 *     wall time and peak RSS. The OFAC .bz2 is decompressed to a temp file BEFORE the timer, and
 *     the load runs in a fresh child process so its peak RSS (getrusage maxrss) covers only the
 *     load, not the decompression;
 * (b) rebuild of the index from the serialised entries (JSON.parse + buildSanctionsIndexFromEntries);
 * (c) single-query screenName latency, p50/p99 over 10,000 queries (half hits, half misses).
 * Targets: (a) < 6 s and < 500 MB; (b) well under 1 s; (c) p99 < 50 µs.
 * Reads the real lists from ../shared/data/sanctions (SHARED_DIR overrides ../shared).
 */
import { spawnSync } from 'node:child_process'
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { parseEuXml } from '../core/sanctions/eu-parser.ts'
import { bz2Decompress } from '../core/sanctions/list-source.ts'
import { nameTokens } from '../core/sanctions/name-normaliser.ts'
import { parseOfacAdvancedXml } from '../core/sanctions/ofac-advanced-parser.ts'
import { buildSanctionsIndex, buildSanctionsIndexFromEntries } from '../core/sanctions/sanctions-index.ts'
import { screenName } from '../core/sanctions/sanctions-screen.ts'
import type { SanctionsEntry } from '../core/sanctions/types.ts'
import { parseUnXml } from '../core/sanctions/un-parser.ts'
import { sanctionsDataDir } from '../test/support/sanctions/shared-data.ts'

const dataDir = sanctionsDataDir()
const OFAC_BZ2 = path.join(dataDir, 'ofac/sdn_advanced/2025-11-19/sdn_advanced.xml.bz2')
const EU_FILE = path.join(dataDir, 'eu/legacy-2016-02-11/data.xml')
const UN_FILE = path.join(dataDir, 'un/2026-02-27/UN_consolidated.xml')
const QUERIES = 10_000

const round = (value: number, digits = 1) => Number(value.toFixed(digits))

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** Deterministic pseudo-random numbers (mulberry32) so runs are comparable. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Half listed names (a quarter with words reordered), half names that are on no list. */
function queries(entries: readonly SanctionsEntry[]): string[] {
  const next = random(42)
  const names = entries.flatMap((entry) => [entry.name, ...entry.aliases.map((alias) => alias.name)])
  const result: string[] = []
  for (let i = 0; i < QUERIES; i++) {
    const name = names[Math.floor(next() * names.length)]!
    if (i % 2 === 0) {
      result.push(i % 4 === 0 ? name : nameTokens(name).reverse().join(' '))
    } else {
      const words = name.split(' ')
      result.push(`${words.join(' ')} Zq${Math.floor(next() * 1e6)}`)
    }
  }
  return result
}

async function child(ofacXmlPath: string): Promise<void> {
  const euBytes = readFileSync(EU_FILE)
  const unBytes = readFileSync(UN_FILE)
  const cpuStart = process.cpuUsage()
  const t0 = performance.now()
  const ofac = await parseOfacAdvancedXml(
    (await import('node:fs')).createReadStream(ofacXmlPath, { highWaterMark: 1 << 20 }),
  )
  const t1 = performance.now()
  const eu = await parseEuXml(euBytes)
  const un = await parseUnXml(unBytes)
  const t2 = performance.now()
  const index = buildSanctionsIndex([ofac, eu, un])
  const t3 = performance.now()
  const cpu = process.cpuUsage(cpuStart)
  const peakRssMb = process.resourceUsage().maxRSS / 1024

  const json = JSON.stringify(index.entries)
  const rebuilds: number[] = []
  for (let i = 0; i < 5; i++) {
    const start = performance.now()
    const rebuilt = buildSanctionsIndexFromEntries(JSON.parse(json) as SanctionsEntry[], index.lists)
    rebuilds.push(performance.now() - start)
    if (rebuilt.entries.length !== index.entries.length) throw new Error('rebuild lost entries')
  }
  rebuilds.sort((a, b) => a - b)

  const batch = queries(index.entries)
  for (const query of batch.slice(0, 2000)) screenName(index, query)
  const latencies: number[] = []
  let hits = 0
  for (const query of batch) {
    const start = process.hrtime.bigint()
    const result = screenName(index, query)
    latencies.push(Number(process.hrtime.bigint() - start) / 1000)
    if (result.matches.length > 0) hits++
  }
  latencies.sort((a, b) => a - b)

  console.log(
    JSON.stringify({
      load_ms: round(t3 - t0),
      load_cpu_ms: round((cpu.user + cpu.system) / 1000),
      ofac_parse_ms: round(t1 - t0),
      eu_un_parse_ms: round(t2 - t1),
      index_build_ms: round(t3 - t2),
      peak_rss_mb: round(peakRssMb),
      entries: { ofac_sdn: ofac.entry_count, eu: eu.entry_count, un: un.entry_count },
      index_keys: {
        exact: index.byExactName.size,
        tokens: index.byTokenKey.size,
        addresses: index.byAddress.size,
      },
      serialised_entries_mb: round(Buffer.byteLength(json) / 1e6),
      rebuild_from_json_ms: { min: round(rebuilds[0]!), median: round(rebuilds[2]!) },
      query_us: {
        count: latencies.length,
        hits,
        p50: round(percentile(latencies, 50), 2),
        p99: round(percentile(latencies, 99), 2),
        max: round(latencies[latencies.length - 1]!, 2),
      },
    }),
  )
}

async function main(): Promise<void> {
  const childIndex = process.argv.indexOf('--child')
  if (childIndex >= 0) {
    await child(process.argv[childIndex + 1]!)
    return
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'sanctions-bench-'))
  const xmlPath = path.join(dir, 'sdn_advanced.xml')
  try {
    const decompressStart = performance.now()
    await pipeline(bz2Decompress(readFileSync(OFAC_BZ2)), createWriteStream(xmlPath))
    const decompressMs = performance.now() - decompressStart
    const run = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--child', xmlPath],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 300_000,
      },
    )
    if (run.status !== 0) throw new Error(`benchmark child failed with status ${run.status}`)
    const figures = JSON.parse(run.stdout.trim().split('\n').pop()!) as Record<string, unknown>
    console.log(
      JSON.stringify({
        command: 'npm run bench:sanctions-index',
        bz2_decompress_ms_untimed: round(decompressMs),
        ...figures,
      }),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
