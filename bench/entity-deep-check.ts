/**
 * Deep-check benchmark: POST /v1/entity/deep-check through the HTTP app (key auth, debit) for every
 * tier against the fakes of yente, the Centraal Insolventieregister (SOAP), GDELT DOC 2.0 and the
 * openapi.com Risk API on 127.0.0.1, each answering after a realistic delay. First each source is
 * timed alone through its adapter (the same call the deep check makes); then each tier. Since all
 * sources of a tier are asked at once, a tier's median should be the slowest of its sources plus a
 * small overhead (validation, pricing, debit, JSON): printed as overhead_ms.
 * Run: npm run bench:entity-deep-check (BENCH_RUNS, default 20).
 */

import { performance } from 'node:perf_hooks'
import { usd } from '../core/money.ts'
import { createDatabase } from '../core/store/database.ts'
import { createService } from '../server/compose.ts'
import { startDeepCheckFakes } from '../test/support/deep-check-fakes.ts'
import { testConfig } from '../test/support/test-config.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const WARMUP = 2
/** Per request, in ms: what these services take from Europe on a good day. */
const LATENCY = { yente: 300, cir: 450, gdelt: 700, risk: 900 }

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}
const round = (n: number) => Math.round(n * 10) / 10

const keepAlive = setInterval(() => {}, 1000)
const fakes = await startDeepCheckFakes({ timeoutMs: 10_000 })
fakes.yente.behave({ delayMs: LATENCY.yente })
fakes.cir.behave({ delayMs: LATENCY.cir })
fakes.gdelt.behave({ delayMs: LATENCY.gdelt })
fakes.risk.behave({ delayMs: LATENCY.risk })
const service = await createService(testConfig({ PORT: '0' }), {
  database: await createDatabase(),
  log: () => {},
})
service.runtime.deps.deepCheck = fakes.sources
const { apiKey } = await service.runtime.keys.create({
  email: 'bench@example.com',
  tier: 'pro',
  balance: usd('10000'),
})

const NL = { entity_name: 'Test BV Donald', country: 'NL', kvk_number: '68750110' }
const IT = { entity_name: 'Esempio SRL', country: 'IT', credit_report_identifier: '12345678903' }
const { pep, insolvency, media, credit } = fakes.sources
if (!pep || !insolvency || !media || !credit) throw new Error('a deep-check fake is missing')

const ok = (result: { status: string }, name: string) => {
  if (result.status !== 'ok') throw new Error(`${name}: ${JSON.stringify(result)}`)
}
const SOLO: Record<string, () => Promise<void>> = {
  opensanctions: async () => ok(await pep.match({ name: NL.entity_name, country: 'NL' }), 'pep'),
  insolvency_register: async () =>
    ok(await insolvency.search({ kvkNumber: NL.kvk_number, name: NL.entity_name }), 'insolvency'),
  gdelt: async () => ok(await media.adverseMedia(NL.entity_name), 'media'),
  credit_report: async () => ok(await credit.report(IT.credit_report_identifier), 'credit'),
}

const TIERS = [
  { tier: 'fresh', body: NL, quality: 'fresh', sources: ['opensanctions', 'insolvency_register'] },
  {
    tier: 'enhanced',
    body: NL,
    quality: 'enhanced',
    sources: ['opensanctions', 'insolvency_register', 'gdelt'],
  },
  {
    tier: 'enhanced + credit (IT)',
    body: IT,
    quality: 'enhanced',
    sources: ['opensanctions', 'gdelt', 'credit_report'],
  },
] as const

async function time(work: () => Promise<void>): Promise<number> {
  const started = performance.now()
  await work()
  return performance.now() - started
}

try {
  const solo: Record<string, number> = {}
  for (const [name, call] of Object.entries(SOLO)) {
    for (let i = 0; i < WARMUP; i++) await call()
    const times: number[] = []
    for (let i = 0; i < RUNS; i++) times.push(await time(call))
    solo[name] = round(median(times))
  }
  const tiers = []
  for (const tier of TIERS) {
    const call = async () => {
      const response = await service.app.request('/v1/entity/deep-check', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': apiKey,
          'x-response-quality': tier.quality,
        },
        body: JSON.stringify(tier.body),
      })
      const body = (await response.json()) as { sources_returned?: string[] }
      if (response.status !== 200) throw new Error(`${tier.tier}: ${response.status} ${JSON.stringify(body)}`)
    }
    for (let i = 0; i < WARMUP; i++) await call()
    const times: number[] = []
    for (let i = 0; i < RUNS; i++) times.push(await time(call))
    const slowest = Math.max(...tier.sources.map((source) => solo[source] as number))
    const sum = tier.sources.reduce((total, source) => total + (solo[source] as number), 0)
    const med = median(times)
    tiers.push({
      tier: tier.tier,
      sources: tier.sources,
      median_ms: round(med),
      min_ms: round(Math.min(...times)),
      max_ms: round(Math.max(...times)),
      slowest_source_ms: slowest,
      sum_of_sources_ms: round(sum),
      overhead_ms: round(med - slowest),
    })
  }
  console.log(
    JSON.stringify(
      {
        benchmark:
          'entity_deep_check per tier, HTTP app with key debit, fakes on 127.0.0.1 at realistic latency',
        fake_latency_per_request_ms: LATENCY,
        node: process.version,
        runs: RUNS,
        source_alone_median_ms: solo,
        tiers,
      },
      null,
      2,
    ),
  )
} finally {
  await service.close()
  await fakes.close()
  clearInterval(keepAlive)
}
