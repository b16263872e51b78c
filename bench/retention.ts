/**
 * Retention job benchmark: `npm run bench:retention -- [--db pglite|postgres] [--rows N]`.
 * Inserts N expired usage rows (default 200,000) plus as many current ones, runs one retention
 * pass with the default batch size, and meanwhile times a key-lookup-sized query every 20 ms (what
 * a call waits for). Prints rows deleted per second and the probe latencies.
 */
import { sql } from 'drizzle-orm'
import { RETENTION_CATEGORIES } from '../core/retention/categories.ts'
import { createRetentionJob } from '../core/retention/retention-job.ts'
import { createDatabase } from '../core/store/database.ts'
import { createManualClock } from '../test/support/fakes/manual-clock.ts'
import { startTempPostgres } from '../test/support/postgres.ts'

const args = process.argv.slice(2)
const dbKind = args.includes('--db') ? args[args.indexOf('--db') + 1] : 'pglite'
const rows = args.includes('--rows') ? Number(args[args.indexOf('--rows') + 1]) : 200_000
const NOW = new Date('2027-06-01T00:00:00Z')

const postgres = dbKind === 'postgres' ? await startTempPostgres() : undefined
const database = await createDatabase(postgres ? { url: postgres.url } : {})
try {
  const old = new Date(NOW.getTime() - 500 * 86_400_000).toISOString()
  const recent = new Date(NOW.getTime() - 86_400_000).toISOString()
  for (const at of [old, recent]) {
    await database.db.execute(sql`
      insert into usage_events (key_id, operation, outcome, paid_with, latency_ms, created_at)
      select 'k' || (g % 100), 'entity_check', 'ok', 'key', 10, ${at}::timestamptz from generate_series(1, ${rows}) g`)
  }
  const job = createRetentionJob({
    db: database.db,
    clock: createManualClock(NOW),
    categories: RETENTION_CATEGORIES.filter((category) => category.category === 'usage_logs'),
    retentionDays: { usage_logs: 395 },
  })
  const probes: number[] = []
  let done = false
  const prober = (async () => {
    while (!done) {
      const started = performance.now()
      await database.db.execute(sql`select id, tier from api_keys where key_hash = ${'x'.repeat(64)}`)
      probes.push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  const started = performance.now()
  const report = await job.runOnce()
  const seconds = (performance.now() - started) / 1000
  done = true
  await prober
  probes.sort((a, b) => a - b)
  const at = (q: number) =>
    Math.round((probes[Math.min(probes.length - 1, Math.floor(q * probes.length))] ?? 0) * 10) / 10
  console.log(
    JSON.stringify({
      db: dbKind,
      expired_rows: rows,
      kept_rows: rows,
      deleted: report.deleted.usage_logs,
      batches: report.batches,
      seconds: Math.round(seconds * 10) / 10,
      rows_per_second: Math.round((report.deleted.usage_logs ?? 0) / seconds),
      probe_queries: probes.length,
      probe_ms: { p50: at(0.5), p99: at(0.99), max: at(1) },
    }),
  )
} finally {
  await database.close()
  postgres?.stop()
}
