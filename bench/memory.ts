/**
 * Where the service's memory goes, stage by stage: `npm run bench:memory -- --db pglite|postgres`
 *
 * Runs the service in a child process of its own with the Node flags and environment `npm start` gives it (plus
 * --expose-gc, so every figure is read after a full collection), twice on the same database: a
 * first start that reads the three full real lists (OFAC SDN Advanced, EU, UN) from files, parses
 * and stores them, then a restart that loads them from the database. At each stage it reads RSS
 * from /proc, process.memoryUsage() (V8 heap in use, external memory, array buffers) and, on
 * PGlite, the size of PGlite's WebAssembly memory (which grows and never shrinks):
 * - start: before anything of the service is imported;
 * - imports: the service's modules imported (the code of every library loaded at start-up);
 * - database: the database open and migrated (PGlite: its cluster created on a first start);
 * - list <key>: each list stored and indexed (first start) or all loaded (restart);
 * - idle: the fuzzy index built (as the warm-up does 2 s after the last list), after a collection;
 * - settled: 20 s later with no forced collection (what an idle service keeps);
 * - peak: the highest RSS of the process (VmHWM) while the lists load (the peak is reset once the
 *   database is open; the database stage's own peak is the first figure in its brackets).
 * With MEMORY_HEAP_SNAPSHOT=<folder> the child writes a heap snapshot at idle, and the parent
 * prints the largest kinds of object in it (self size by constructor); MEMORY_SMAPS=1 prints the
 * largest mappings, MEMORY_SPACES=1 V8's heap spaces (committed and used) at the end.
 * Env: DATABASE_URL (else a throwaway PostgreSQL for --db postgres).
 */
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8'
import { serviceNodeArgs, startCommand } from './support/start-command.ts'

const self = fileURLToPath(import.meta.url)
/** How long the idle service is left alone before the `settled` figures (MEMORY_SETTLE_MS, default 20 s). */
const SETTLE_MS = Number(process.env.MEMORY_SETTLE_MS ?? 20_000)
const MB = 1024 * 1024
const round = (value: number) => Math.round(value * 10) / 10

/** One stage's figures, in MB. */
interface Stage {
  stage: string
  rss: number
  /** The highest RSS so far (VmHWM). */
  peak: number
  /** RSS backed by files (mapped code: node itself, shared libraries); the rest is anonymous memory. */
  file_backed: number
  /** V8's heap as committed (heap_used is the live part of it). */
  heap_total: number
  heap_used: number
  external: number
  array_buffers: number
  /** PGlite's WebAssembly memory (null on PostgreSQL, or before the database opens). */
  wasm: number | null
}

function procMb(field: 'VmRSS' | 'VmHWM' | 'RssFile'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))
  return match ? round(Number(match[1]) / 1024) : Number.NaN
}

const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
}

/** The process's largest mappings by resident size (MEMORY_SMAPS=1): what holds the RSS no counter explains. */
function largestMappings(top = 12): string[] {
  const mappings: { header: string; rss: number }[] = []
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) mappings.push({ header: line, rss: 0 })
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss && mappings.length > 0) mappings[mappings.length - 1]!.rss = Number(rss[1]) / 1024
  }
  return mappings
    .sort((a, b) => b.rss - a.rss)
    .slice(0, top)
    .map(({ header, rss }) => {
      const [range, , , , , name] = header.split(/\s+/)
      const [from, to] = range!.split('-').map((hex) => Number.parseInt(hex, 16))
      return `  mapping ${round((to! - from!) / MB)} MB, resident ${round(rss)} MB ${name ?? ''}`
    })
}

/** Resets VmHWM to the current RSS (Linux: 5 into clear_refs), so the next peak is one stage's own. */
function resetPeak(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
  } catch {
    // Without it the peak covers the database's opening as well; the figures say so.
  }
}

/** V8's heap spaces, committed and used (MB): where a heap committed beyond its use sits. */
function heapSpaces(): string[] {
  return getHeapSpaceStatistics().map(
    (space) =>
      `  ${space.space_name.padEnd(24)} committed ${round(space.physical_space_size / MB)} MB, used ${round(space.space_used_size / MB)} MB`,
  )
}

/** The child: the stages of one start of the service (imports are dynamic so the first stage has none). */
async function serviceChild(): Promise<void> {
  const spec = JSON.parse(process.argv[3]!) as { env: Record<string, string>; databaseUrl?: string }
  let wasmOf: () => number | null = () => null
  const stages: Stage[] = []
  const mark = (stage: string, collectFirst = true) => {
    if (collectFirst) collect()
    const usage = process.memoryUsage()
    const figures: Stage = {
      stage,
      rss: procMb('VmRSS'),
      peak: procMb('VmHWM'),
      file_backed: procMb('RssFile'),
      heap_total: round(usage.heapTotal / MB),
      heap_used: round(usage.heapUsed / MB),
      external: round(usage.external / MB),
      array_buffers: round(usage.arrayBuffers / MB),
      wasm: wasmOf(),
    }
    stages.push(figures)
    console.log(JSON.stringify(figures))
  }
  mark('start')
  const [{ createService }, { createDatabase }, { testConfig }] = await Promise.all([
    import('../server/compose.ts'),
    import('../core/store/database.ts'),
    import('../test/support/test-config.ts'),
  ])
  mark('imports')
  const config = testConfig(spec.env)
  const database = await createDatabase(
    spec.databaseUrl ? { url: spec.databaseUrl } : { dataDir: config.DATA_DIR! },
  )
  if (database.kind === 'pglite') {
    const client = (database.db as unknown as { $client: { Module?: { HEAPU8: Uint8Array } } }).$client
    wasmOf = () => {
      const heap = client.Module?.HEAPU8
      return heap ? round(heap.buffer.byteLength / MB) : null
    }
  }
  mark('database')
  // From here the peak (VmHWM) is the lists' own: opening the database had its peak above.
  resetPeak()
  const service = await createService(config, {
    database,
    log: (_level, message, extra) => {
      if (message === 'sanctions list updated') mark(`list ${(extra as { list_key: string }).list_key}`)
    },
  })
  const lists = service.runtime.deps.sanctionsLists!
  await lists.idle()
  if (!stages.some((stage) => stage.stage.startsWith('list '))) mark('lists loaded')
  // What the warm-up does 2 s after the last list: build the fuzzy index.
  lists.screenNameFuzzy('Memory Probe')
  const peak = procMb('VmHWM') // the lists' load (reset after the database opened)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  mark('idle')
  console.log(JSON.stringify({ stage: 'lists peak', rss: peak }))
  // An idle service as it stays: no forced collection; V8's memory reducer shrinks the heap on its own.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  mark('settled', false)
  if (process.env.MEMORY_SMAPS) console.error(largestMappings().join('\n'))
  if (process.env.MEMORY_SPACES) console.error(heapSpaces().join('\n'))
  const snapshotDir = process.env.MEMORY_HEAP_SNAPSHOT
  if (snapshotDir) {
    const file = writeHeapSnapshot(path.join(snapshotDir, `${spec.env.MEMORY_RUN}.heapsnapshot`))
    console.log(JSON.stringify({ stage: 'snapshot', file }))
  }
  await service.close()
  console.log(JSON.stringify({ stage: 'done' }))
  process.exit(0)
}

/** Runs one start of the service; resolves with its stages. */
async function runChild(env: Record<string, string>, databaseUrl: string | undefined) {
  const start = startCommand()
  const child = spawn(
    process.execPath,
    [...serviceNodeArgs(self, ['--expose-gc']), '--serve', JSON.stringify({ env, databaseUrl })],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...start.env } },
  )
  const stages: (Stage | { stage: string; rss?: number; file?: string })[] = []
  for await (const line of createInterface({ input: child.stdout! })) {
    if (!line.startsWith('{')) continue
    const parsed = JSON.parse(line) as Stage
    stages.push(parsed)
    if (parsed.stage === 'done') break
  }
  await new Promise((resolve) => child.once('exit', resolve))
  return stages
}

/** The largest kinds of object in a heap snapshot: self size summed by constructor name, in MB. */
function heapSummary(file: string, top = 15): string[] {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }
    nodes: number[]
    strings: string[]
  }
  const fields = snapshot.snapshot.meta.node_fields
  const width = fields.length
  const typeAt = fields.indexOf('type')
  const nameAt = fields.indexOf('name')
  const sizeAt = fields.indexOf('self_size')
  const types = snapshot.snapshot.meta.node_types[0]
  const sums = new Map<string, { size: number; count: number }>()
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]!]!
    const name = snapshot.strings[snapshot.nodes[i + nameAt]!]!
    const key = type === 'object' || type === 'closure' ? `${type} ${name}` : type
    const sum = sums.get(key) ?? { size: 0, count: 0 }
    sum.size += snapshot.nodes[i + sizeAt]!
    sum.count += 1
    sums.set(key, sum)
  }
  return [...sums.entries()]
    .sort((a, b) => b[1].size - a[1].size)
    .slice(0, top)
    .map(([key, { size, count }]) => `  ${key.padEnd(40)} ${round(size / MB)} MB (${count})`)
}

async function main(): Promise<void> {
  const [{ threeListEnv }, { benchDatabase }] = await Promise.all([
    import('./support/three-lists.ts'),
    import('./support/bench-database.ts'),
  ])
  const database = await benchDatabase('memory-bench-')
  const db = database.kind
  const env = { ...(await threeListEnv()), DATA_DIR: database.dataDir }
  try {
    for (const run of ['first start', 'restart']) {
      const stages = await runChild({ ...env, MEMORY_RUN: `${db}-${run.replace(' ', '-')}` }, database.url)
      console.log(
        `\n${db}, ${run} (MB: RSS (peak so far, file-backed) | V8 heap used / committed | external | array buffers | PGlite WebAssembly memory)`,
      )
      for (const stage of stages) {
        if (stage.stage === 'done') continue
        if ('file' in stage && stage.file) {
          console.log(`heap snapshot ${stage.file}, largest kinds of object (self size):`)
          console.log(heapSummary(stage.file).join('\n'))
          continue
        }
        if (!('heap_used' in stage)) {
          console.log(`  ${stage.stage.padEnd(14)} ${stage.rss}`)
          continue
        }
        const wasm = stage.wasm === null ? '-' : String(stage.wasm)
        console.log(
          `  ${stage.stage.padEnd(14)} ${stage.rss} (${stage.peak}, ${stage.file_backed}) | ${stage.heap_used} / ${stage.heap_total} | ${stage.external} | ${stage.array_buffers} | ${wasm}`,
        )
      }
    }
  } finally {
    database.cleanup()
  }
}

if (process.argv[2] === '--serve') await serviceChild()
else await main()
