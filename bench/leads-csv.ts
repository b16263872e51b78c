/**
 * Benchmark of `validation-cli leads verify`: generates a 1,000-row CSV
 * with duplicates and bad rows, starts the service on 127.0.0.1 with every lead source a fake
 * answering after 100 ms, runs the CLI on it, and prints the total time, leads per second, the
 * CLI's peak memory and the upstream calls per source against the lookups the leads asked for
 * (the difference is the per-batch de-duplication).
 *
 *   npm run bench:leads-csv -- [rows=1000] [delayMs=100]
 *
 * Offline: the service config comes from testConfig() (sanctions lists off; the sanctions screen
 * is the fake one).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { usd } from '../core/money.ts'
import { createDatabase } from '../core/store/database.ts'
import { validateVatNumber } from '../core/validate/index.ts'
import { createService } from '../server/compose.ts'
import { startLeadFakes } from '../test/support/lead-fakes.ts'
import { listen, TEST_ADMIN_KEY } from '../test/support/serve.ts'
import { testConfig } from '../test/support/test-config.ts'

const ROWS = Number(process.argv[2] ?? 1000)
const DELAY_MS = Number(process.argv[3] ?? 100)

/** NL VAT numbers with valid check digits (VIES will call them invalid: unknown to the fake). */
function nlVatNumbers(count: number): string[] {
  const out: string[] = []
  for (let n = 100000000; out.length < count; n++) {
    const candidate = `NL${n}B01`
    if (validateVatNumber(candidate).ok) out.push(candidate)
  }
  return out
}

/** A seeded pseudo-random generator, so every run gets the same CSV. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state / 2 ** 31
  }
}

function generateCsv(rows: number): { text: string; bad: number; duplicates: number } {
  const rnd = random(12)
  const vats = nlVatNumbers(150)
  const header = 'id,company,country,kvk,cbe,vat,email,website,iban,contact'
  // 300 distinct leads: known fake companies, unknown KVK numbers, free mail, disposable mail.
  const distinct: string[] = []
  for (let i = 0; i < 300; i++) {
    const kind = i % 6
    const domain = `bedrijf${i}.nl`
    if (kind === 0)
      distinct.push(
        'Test BV Donald,NL,68750110,,NL857587973B01,jan@testbvdonald.nl,testbvdonald.nl,NL91ABNA0417164300,Jan de Vries',
      )
    else if (kind === 1)
      distinct.push(
        `Bedrijf ${i} BV,NL,${String(30000000 + i)},,${vats[i % vats.length]},info@${domain},${domain},NL91ABNA0417164300,Piet ${i}`,
      )
    else if (kind === 2)
      distinct.push(`Veneco,BE,,0200.065.765,,sales${i}@veneco.be,veneco.be,BE71096123456769,`)
    else if (kind === 3)
      distinct.push(`Bedrijf ${i} BV,NL,${String(30000000 + i)},,,contact${i}@gmail.com,${domain},,Anna ${i}`)
    else if (kind === 4) distinct.push(`Bedrijf ${i} BV,NL,${String(30000000 + i)},,,x${i}@mailinator.com,,,`)
    else distinct.push(`Intercommunaal Sanatorium Denderoord,BE,,0200.245.711,,,,,`)
  }
  const badRows = [
    'Beispiel GmbH,DE,,,,info@beispiel.de,beispiel.de,,', // country
    'Kapot BV,NL,123,,,,,,', // kvk number
    'Kapot BV,NL,,,,not-an-email,,,', // e-mail
    'Kapot BV,NL,,,,,,NL00ABNA0000000000,', // iban
  ]
  const lines = [header]
  let bad = 0
  let duplicates = 0
  const seen = new Set<string>()
  for (let n = 1; n <= rows; n++) {
    let body: string
    if (rnd() < 0.08) {
      body = badRows[Math.floor(rnd() * badRows.length)] as string
      bad++
    } else {
      // Skewed towards the first leads: plenty of duplicates, as in a CRM export.
      body = distinct[Math.floor(rnd() ** 2 * distinct.length)] as string
      if (seen.has(body)) duplicates++
      seen.add(body)
    }
    lines.push(`R${n},${body}`)
  }
  return { text: `${lines.join('\n')}\n`, bad, duplicates }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'leads-bench-'))
  const input = join(dir, 'leads.csv')
  const out = join(dir, 'results.csv')
  const csv = generateCsv(ROWS)
  writeFileSync(input, csv.text)

  const fakes = await startLeadFakes({ delayMs: DELAY_MS })
  // As createTestService does, without vitest: PGlite in memory, rate limits off.
  const service = await createService(
    testConfig({ ADMIN_API_KEY: TEST_ADMIN_KEY, PORT: '0', RATE_LIMITS: 'off' }),
    { database: await createDatabase(), log: () => {} },
  )
  service.runtime.deps.companySources = fakes.sources
  service.runtime.deps.sanctions = fakes.sanctions
  const server = await listen(service)
  const created = await service.runtime.keys.create({
    email: 'bench@example.com',
    tier: 'pro',
    balance: usd('1000'),
  })
  const balanceBefore = created.record.balanceMicros

  // The CLI in its own process, reporting its own peak memory when it ends: VmHWM (the peak RSS of
  // the process image), since getrusage's maxRSS survives exec and would report this benchmark's
  // own memory at the time of the spawn.
  const cli = join(import.meta.dirname, '..', 'client', 'cli.ts')
  const wrapper = `const { main } = await import(${JSON.stringify(cli)});
const code = await main(process.argv.slice(1));
const hwm = /VmHWM:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'));
process.stderr.write('CLI_MAX_RSS_KB ' + (hwm ? hwm[1] : process.resourceUsage().maxRSS) + '\\n');
process.exitCode = code;`
  const started = performance.now()
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', wrapper, 'leads', 'verify', input, '--out', out],
      {
        env: { ...process.env, VALIDATION_API_URL: server.baseUrl, VALIDATION_API_KEY: created.apiKey },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    let text = ''
    child.stderr.on('data', (chunk) => {
      text += chunk
    })
    child.on('exit', (exitCode) => resolve({ code: exitCode, stderr: text }))
  })
  const seconds = (performance.now() - started) / 1000
  // 3: done, with the bad rows of the file not verified (each with its error).
  if (code !== 0 && code !== 3) throw new Error(`the CLI failed (${code}):\n${stderr}`)

  const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[]
  const verified = rows.filter((r) => r.lead_status === 'verified')
  const verdicts = Object.fromEntries(
    ['proceed', 'review', 'block'].map((v) => [v, verified.filter((r) => r.verdict === v).length]),
  )
  const balanceAfter = (await service.runtime.keys.get(created.record.id))?.balanceMicros ?? 0n
  const maxRss = Number(/CLI_MAX_RSS_KB (\d+)/.exec(stderr)?.[1] ?? 0)

  // Lookups the leads asked for (one per lead and input), against the calls the fakes received.
  const asked = { kvk: 0, kbo: 0, vies: 0, mail_domains: 0, web_domains: 0, names: 0 }
  for (const r of verified) {
    if (r.kvk || (r.country === 'NL' && r.company)) asked.kvk++
    if (r.cbe) asked.kbo++
    if (r.vat) asked.vies++
    if (r.email && !r.email.endsWith('@mailinator.com')) asked.mail_domains++
    if (r.website) asked.web_domains++
    asked.names += (r.company ? 1 : 0) + (r.contact ? 1 : 0)
  }
  const calls = fakes.upstreamCalls()
  const figures = {
    command: `npm run bench:leads-csv -- ${ROWS} ${DELAY_MS}`,
    rows: ROWS,
    bad_rows: csv.bad,
    duplicate_rows: csv.duplicates,
    fake_delay_ms: DELAY_MS,
    total_s: Number(seconds.toFixed(2)),
    leads_per_s: Number((ROWS / seconds).toFixed(1)),
    cli_peak_rss_mb: Number((maxRss / 1024).toFixed(1)),
    verified: verified.length,
    invalid: rows.length - verified.length,
    verdicts,
    charged_usdc: Number(balanceBefore - balanceAfter) / 1e6,
    charged_leads: Number((balanceBefore - balanceAfter) / usd('0.27')),
    lookups_asked_by_leads: asked,
    upstream_calls: {
      kvk_http: calls.kvk,
      vies_http: calls.vies,
      dns_queries: calls.dns,
      sanctions_screens: calls.sanctions,
      note: 'KBO is the in-process open-data store (no upstream call); a DNS probe sends several queries',
    },
  }
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`)
  await server.close()
  await fakes.close()
  await service.close()
}

await main()
