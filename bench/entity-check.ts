/**
 * Entity-check benchmark: the whole operation through the HTTP app (key auth, balance debit,
 * parallel fan-out, scoring, storing the check, usage record) with every optional field, against
 * the fake upstreams (KVK, VIES, RDAP, DNS, TLS and the sanctions screen) each answering after
 * DELAY ms, KBO from the local excerpt. Prints JSON: median and p95 wall time per check and the
 * overhead beyond the upstream delay. Run: npm run bench:entity-check
 */
import { performance } from 'node:perf_hooks'
import { usd } from '../core/money.ts'
import { createDatabase } from '../core/store/database.ts'
import { createService } from '../server/compose.ts'
import { startCompanyFakes } from '../test/support/company-fakes.ts'
import { testConfig } from '../test/support/test-config.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 30)
const WARMUP = 3

const FULL = {
  entity_name: 'Test BV Donald',
  country: 'NL',
  kvk_number: '68750110',
  cbe_number: '0200.065.765',
  domain: 'example.com',
  iban: 'NL91ABNA0417164300',
  vat_number: 'NL857587973B01',
  wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  wallet_chain: 'eth',
  target_industries: ['6420'],
  target_size: { min: 1, max: 10 },
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
const round = (n: number) => Math.round(n * 10) / 10

async function measure(delayMs: number) {
  const fakes = await startCompanyFakes({ delayMs, timeoutMs: 5000 })
  const database = await createDatabase()
  const config = testConfig({ PORT: '0', ADMIN_API_KEY: 'svc_admin_bench_0123456789abcdefghij' })
  const service = await createService(config, { database, log: () => {} })
  service.runtime.deps.companySources = fakes.sources
  service.runtime.deps.sanctions = fakes.sanctions
  const { apiKey } = await service.runtime.keys.create({
    email: 'bench@example.com',
    tier: 'pro',
    balance: usd('1000'),
  })
  const check = async () => {
    const started = performance.now()
    const response = await service.app.request('/v1/entity/check', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(FULL),
    })
    const body = (await response.json()) as { sources_checked: number; sources: { status: string }[] }
    const elapsed = performance.now() - started
    if (response.status !== 200 || body.sources.some((s) => s.status !== 'ok')) {
      throw new Error(`check failed: ${response.status} ${JSON.stringify(body)}`)
    }
    return { elapsed, sourcesChecked: body.sources_checked }
  }
  try {
    for (let i = 0; i < WARMUP; i++) await check() // warms the RDAP bootstrap cache and the JIT
    const times: number[] = []
    let sourcesChecked = 0
    for (let i = 0; i < RUNS; i++) {
      const { elapsed, sourcesChecked: n } = await check()
      times.push(elapsed)
      sourcesChecked = n
    }
    times.sort((a, b) => a - b)
    const median = percentile(times, 50)
    return {
      upstream_delay_ms: delayMs,
      runs: RUNS,
      sources_checked: sourcesChecked,
      median_ms: round(median),
      p95_ms: round(percentile(times, 95)),
      min_ms: round(times[0] as number),
      max_ms: round(times[times.length - 1] as number),
      overhead_median_ms: round(median - delayMs),
      overhead_p95_ms: round(percentile(times, 95) - delayMs),
    }
  } finally {
    await service.close()
    await fakes.close()
  }
}

// The fakes' timers and undici's pooled sockets are unref'd: keep the process alive meanwhile.
const keepAlive = setInterval(() => {}, 1000)
const results = []
for (const delay of [200, 0]) results.push(await measure(delay))
clearInterval(keepAlive)
console.log(
  JSON.stringify(
    {
      benchmark: 'entity_check with every optional field, all fakes answering after the delay',
      target: 'median and p95 under 400 ms at 200 ms per upstream (parallel fan-out)',
      node: process.version,
      results,
    },
    null,
    2,
  ),
)
