import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { usd } from '../core/money.ts'
import { rowsOf } from '../core/store/database.ts'
import type { Service } from '../server/compose.ts'
import { createManualClock } from '../test/support/fakes/index.ts'
import { type LeadFakes, startLeadFakes } from '../test/support/lead-fakes.ts'
import { createTestService, listen } from '../test/support/service.ts'
import { connectionCause, finishedRows, leadOfRow, mapColumns } from './leads-verify.ts'

const BIN = join(import.meta.dirname, '..', 'server', 'bin', 'validation-cli.js')

/** 40 data rows: a mix of clean, flagged, duplicated and invalid leads, with aliased headers. */
function leadsCsv(): { text: string; valid: number; rows: number } {
  const header = 'Lead ID,Company,Country,KvK,CBE,BTW,E-mail,Website,IBAN,Contact,Owner'
  const kinds = [
    'L{n},Test BV Donald,nl,68750110,,NL857587973B01,jan@testbvdonald.nl,https://testbvdonald.nl/contact,NL91 ABNA 0417 1643 00,Jan de Vries,anna',
    'L{n},Veneco,BE,,0200.065.765,,info@veneco.be,veneco.be,NL91ABNA0417164300,,bob',
    'L{n},Test BV Donald,NL,68750110,,,donald@gmail.com,,,,anna',
    'L{n},Beispiel GmbH,DE,,,,,,,,bob', // invalid: country
    'L{n},"Quote, Comma BV",NL,123,,,,,,,anna', // invalid: kvk number
  ]
  const lines = [header]
  for (let n = 1; n <= 40; n++)
    lines.push((kinds[(n - 1) % kinds.length] as string).replace('{n}', String(n)))
  return { text: `${lines.join('\n')}\n`, valid: 24, rows: 40 }
}

describe('validation-cli leads verify', () => {
  let service: Service
  let fakes: LeadFakes
  let server: { baseUrl: string; close(): Promise<void> }
  let key: string
  let keyId: string
  let dir: string

  beforeAll(async () => {
    const clock = createManualClock(new Date())
    // Slow enough upstreams that an interruption lands mid-run (nothing here is timed).
    fakes = await startLeadFakes({ clock, delayMs: 40 })
    service = await createTestService('pglite', {}, { clock })
    service.runtime.deps.companySources = fakes.sources
    service.runtime.deps.sanctions = fakes.sanctions
    server = await listen(service)
    const created = await service.runtime.keys.create({
      email: 'sales@example.com',
      tier: 'pro',
      balance: usd('50'),
    })
    key = created.apiKey
    keyId = created.record.id
    dir = mkdtempSync(join(tmpdir(), 'leads-cli-'))
  })
  afterAll(async () => {
    await server?.close()
    await fakes?.close()
    await service?.close()
  })

  const balance = async () => (await service.runtime.keys.get(keyId))?.balanceMicros ?? 0n

  function run(args: string[]): {
    child: ChildProcess
    done: Promise<{ code: number | null; stderr: string }>
  } {
    const child = spawn(process.execPath, [BIN, 'leads', 'verify', ...args], {
      env: { ...process.env, VALIDATION_API_URL: server.baseUrl, VALIDATION_API_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
      child.on('exit', (code) => resolve({ code, stderr })),
    )
    return { child, done }
  }

  it('maps aliased headers and cleans cells', () => {
    const columns = mapColumns([
      'Lead ID',
      'Company',
      'Country',
      'KvK',
      'BTW',
      'E-mail',
      'Website',
      'IBAN',
      'Owner',
    ])
    expect([...columns.values()]).toEqual([
      'reference',
      'company_name',
      'country',
      'kvk_number',
      'vat_number',
      'email',
      'website',
      'iban',
    ])
    expect(
      leadOfRow(
        { Country: 'nl', Website: 'https://www.x.nl/about?a=1', IBAN: 'nl91 abna 0417 1643 00', KvK: '' },
        columns,
      ),
    ).toEqual({ country: 'NL', website: 'www.x.nl', iban: 'NL91ABNA0417164300' })
  })

  /** Idempotency-Key claims of the test key still running on the service. */
  const callsInFlight = async () =>
    Number(
      rowsOf<{ n: unknown }>(
        await service.database.db.execute(
          sql`select count(*)::int as n from idempotency_records where key_id = ${keyId} and state = 'in_progress'`,
        ),
      )[0]?.n,
    )

  const until = (condition: () => Promise<boolean> | boolean) =>
    new Promise<void>((resolve, reject) => {
      const poll = setInterval(async () => {
        try {
          if (await condition()) {
            clearInterval(poll)
            resolve()
          }
        } catch (error) {
          clearInterval(poll)
          reject(error)
        }
      }, 10)
    })

  it('is killed with SIGKILL mid-call, resumes, and charges each valid lead exactly once', async () => {
    const input = join(dir, 'leads.csv')
    const out = join(dir, 'results.csv')
    const csv = leadsCsv()
    writeFileSync(input, csv.text)
    const before = await balance()

    const first = run([input, '--out', out, '--batch-size', '5'])
    // Kill hard once at least two batches are written and the next call is running on the service:
    // the service answers and charges it, the CLI never writes its rows.
    await until(async () => existsSync(out) && finishedRows(out).size >= 10 && (await callsInFlight()) > 0)
    first.child.kill('SIGKILL')
    const stopped = await first.done
    expect(stopped.code).toBeNull()
    const partial = finishedRows(out).size
    expect(partial).toBeGreaterThanOrEqual(10)
    expect(partial).toBeLessThan(csv.rows)
    const pending = JSON.parse(readFileSync(`${out}.pending`, 'utf8')) as { rows: number[] }
    expect(pending.rows).toHaveLength(5)
    // Plain progress lines when stderr is not a terminal.
    expect(stopped.stderr).toMatch(/leads \d+\/40 \(\d+%\) [\d.]+ leads\/s ETA \d+s/)

    // Resumed with another batch size: the killed batch is still sent first as it was, answered
    // from the service's stored answer (or waited for while it runs) and not charged again.
    const second = await run([input, '--out', out, '--batch-size', '7']).done
    expect(second.code).toBe(0)
    expect(second.stderr).toContain(`skipped ${partial} already done`)
    expect(second.stderr).toContain(`rows ${pending.rows[0]}-${pending.rows[4]} were in flight`)
    expect(second.stderr).toContain('1 batch answered from an earlier call, not charged again')
    expect(existsSync(`${out}.pending`)).toBe(false)

    const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[]
    expect(rows.map((r) => Number(r.row_number))).toEqual(Array.from({ length: csv.rows }, (_, i) => i + 1))
    expect(rows.map((r) => r['Lead ID'])).toEqual(Array.from({ length: csv.rows }, (_, i) => `L${i + 1}`))
    expect(rows.filter((r) => r.lead_status === 'verified')).toHaveLength(csv.valid)
    expect(rows.filter((r) => r.lead_status === 'invalid')).toHaveLength(csv.rows - csv.valid)
    expect(rows[0]).toMatchObject({ verdict: 'proceed', lead_score: '100', flags: '', Owner: 'anna' })
    expect(rows[1]).toMatchObject({
      verdict: 'review',
      flags: 'foreign_iban',
      actions: 'verify_bank_details',
    })
    expect(rows[2]).toMatchObject({ flags: 'free_mail_address', actions: 'request_company_email' })
    expect(rows[3]?.errors).toContain('country')
    expect(rows[4]?.errors).toContain('kvk_number')
    expect(rows[4]?.Company).toBe('Quote, Comma BV')

    // The key paid 0.27 per valid lead, once.
    expect(before - (await balance())).toBe(usd('0.27') * BigInt(csv.valid))

    // A third run has nothing left to do and charges nothing.
    const third = await run([input, '--out', out]).done
    expect(third.code).toBe(0)
    expect(before - (await balance())).toBe(usd('0.27') * BigInt(csv.valid))
  })

  it('stops after the batch in flight on SIGTERM, leaving no batch pending', async () => {
    const input = join(dir, 'term.csv')
    const out = join(dir, 'term.results.csv')
    writeFileSync(input, leadsCsv().text)
    const first = run([input, '--out', out, '--batch-size', '5'])
    await until(() => existsSync(out) && finishedRows(out).size >= 5)
    first.child.kill('SIGTERM')
    const stopped = await first.done
    expect(stopped.code).toBe(130)
    expect(existsSync(`${out}.pending`)).toBe(false)
    expect(finishedRows(out).size % 5).toBe(0)
  })

  it('sends the rows named in <out>.pending first, as a batch of their own', async () => {
    const input = join(dir, 'killed.csv')
    const out = join(dir, 'killed.results.csv')
    writeFileSync(
      input,
      'country,company,kvk\nNL,Test BV Donald,68750110\nNL,Test BV Donald,68750110\nNL,Test BV Donald,68750110\n',
    )
    writeFileSync(`${out}.pending`, JSON.stringify({ rows: [1, 2] }))
    const before = await balance()
    const result = await run([input, '--out', out]).done
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('rows 1-2 were in flight')
    expect(existsSync(`${out}.pending`)).toBe(false)
    expect(finishedRows(out).size).toBe(3)
    expect(before - (await balance())).toBe(usd('0.27') * 3n)
  })

  it('names the missing key and a file without a country column', async () => {
    const input = join(dir, 'nocountry.csv')
    writeFileSync(input, 'company\nTest BV Donald\n')
    const missing = await run([input, '--out', join(dir, 'x.csv')]).done
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('country')
  })
})

describe('connectionCause', () => {
  it('names the reason fetch keeps in its cause (a refused connection), not just "fetch failed"', async () => {
    const { createServer } = await import('node:net')
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as { port: number }
    await new Promise((resolve) => closed.close(resolve))
    const error = await fetch(`http://127.0.0.1:${port}/v1/leads/verify`).catch((e: unknown) => e)
    expect(String(error)).toContain('fetch failed')
    expect(connectionCause(error)).toContain('ECONNREFUSED')
    expect(connectionCause(new Error('plain'))).toBe('plain')
  })
})
