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
import { connectionCause, finishedRows, leadOfRow, mapColumns, runLeadsVerify } from './leads-verify.ts'

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

  /**
   * The same command in this process: what a CLI process would print on stderr and exit with (an
   * uncaught error: its stack and 1, as Node does). The kill tests above need a process; the
   * cases below only need the command, and a CLI process per case is most of their cost.
   */
  async function runHere(args: string[]): Promise<{ code: number; stderr: string }> {
    let stderr = ''
    const io = {
      stderr: { write: (text: string) => (stderr += text) },
      env: { VALIDATION_API_URL: server.baseUrl, VALIDATION_API_KEY: key },
    }
    try {
      return { code: await runLeadsVerify(args, io), stderr }
    } catch (error) {
      return { code: 1, stderr: `${stderr}${(error as Error).stack}\n` }
    }
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
    // the CLI never writes its rows. The service charges that call only if its answer was written
    // whole before the CLI died (charged = delivered), and then keeps it for the retry.
    await until(async () => existsSync(out) && finishedRows(out).size >= 10 && (await callsInFlight()) > 0)
    first.child.kill('SIGKILL')
    const stopped = await first.done
    expect(stopped.code).toBeNull()
    const partial = finishedRows(out).size
    expect(partial).toBeGreaterThanOrEqual(10)
    expect(partial).toBeLessThan(csv.rows)
    const pending = JSON.parse(readFileSync(`${out}.pending`, 'utf8')) as { rows: number[] }
    expect(pending.rows).toHaveLength(5)
    // The kill may land while the CLI writes that batch's rows (its claim stays in progress on the
    // service until the answer's capture): the rows it wrote are done, the others still in flight.
    const writtenAtKill = finishedRows(out)
    const inFlight = pending.rows.filter((row) => !writtenAtKill.has(row))
    // Plain progress lines when stderr is not a terminal.
    expect(stopped.stderr).toMatch(/leads \d+\/40 \(\d+%\) [\d.]+ leads\/s ETA \d+s/)

    // Resumed with another batch size: the killed batch is still sent first as it was, with the
    // same Idempotency-Key. Either its answer reached the dead CLI's socket (charged then, and
    // now answered from the stored answer, not charged again) or it did not (nothing was charged,
    // and it runs now, charged once): which one depends on when the kill landed. The balance
    // below says "once" in both cases.
    const second = await run([input, '--out', out, '--batch-size', '7']).done
    // 3: done, the file's invalid rows not verified (each with its own error).
    expect(second.code).toBe(3)
    expect(second.stderr).toContain(`skipped ${partial} already done`)
    if (inFlight.length > 0) {
      expect(second.stderr).toContain(
        `rows ${inFlight.length > 1 ? `${inFlight[0]}-${inFlight.at(-1)}` : inFlight[0]} were in flight`,
      )
    } else expect(second.stderr).not.toContain('were in flight')
    expect(existsSync(`${out}.pending`)).toBe(false)

    // Each row once (the first run's invalid rows were sent again, so they come after the others).
    const rows = (parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[]).sort(
      (a, b) => Number(a.row_number) - Number(b.row_number),
    )
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

    // A third run sends only the invalid rows again (free), charges nothing, and still says 3.
    const third = await run([input, '--out', out]).done
    expect(third.code).toBe(3)
    expect(third.stderr).toContain(`skipped ${csv.valid} already done`)
    expect(third.stderr).toContain(`${csv.rows - csv.valid} rows not verified`)
    expect(before - (await balance())).toBe(usd('0.27') * BigInt(csv.valid))
    expect(parse(readFileSync(out, 'utf8'), { columns: true })).toHaveLength(csv.rows)
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
    // Whole batches only: the rows written (verified or not) are a multiple of the batch size.
    expect(parse(readFileSync(out, 'utf8'), { columns: true }).length % 5).toBe(0)
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
    const result = await runHere([input, '--out', out])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('rows 1-2 were in flight')
    expect(existsSync(`${out}.pending`)).toBe(false)
    expect(finishedRows(out).size).toBe(3)
    expect(before - (await balance())).toBe(usd('0.27') * 3n)
  })

  it('names the missing key and a file without a country column', async () => {
    const input = join(dir, 'nocountry.csv')
    writeFileSync(input, 'company\nTest BV Donald\n')
    const missing = await runHere([input, '--out', join(dir, 'x.csv')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('country')
  })

  // {tag} makes each file's batches its own (the same body would be a replay of an earlier call).
  const CLEAN = 'NL,Test BV Donald {tag},68750110'
  const HEADER = 'country,company,kvk'
  const outputRows = (out: string) =>
    existsSync(out) ? (parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[]) : []

  it('a 100-row CSV with one NUL row: 99 verified and charged, that row with its own error, exit 3; a rerun retries only it', async () => {
    const input = join(dir, 'nul.csv')
    const out = join(dir, 'nul.results.csv')
    const lines = [`ref,${HEADER}`]
    for (let n = 1; n <= 100; n++)
      lines.push(n === 42 ? `r42,NL,Test\u0000BV Donald,68750110` : `r${n},${CLEAN}`)
    writeFileSync(input, `${lines.join('\n')}\n`)
    const before = await balance()
    const first = await runHere([input, '--out', out])
    expect(first.code).toBe(3)
    expect(first.stderr).toContain('99 verified, 1 invalid')
    expect(first.stderr).toContain('1 row not verified')
    expect(before - (await balance())).toBe(usd('0.27') * 99n)
    const rows = outputRows(out)
    expect(rows).toHaveLength(100)
    expect(rows.filter((r) => r.lead_status === 'verified')).toHaveLength(99)
    expect(rows[41]).toMatchObject({
      ref: 'r42',
      row_number: '42',
      lead_status: 'invalid',
      errors: 'company_name: contains a control character (U+0000) at position 4',
    })
    // Every other row has no error; the invalid row is not done, so a rerun sends it again (free).
    expect(rows.filter((r) => r.errors !== '')).toHaveLength(1)
    expect(finishedRows(out).size).toBe(99)
    const again = await runHere([input, '--out', out])
    expect(again.code).toBe(3)
    expect(again.stderr).toContain('skipped 99 already done')
    expect(again.stderr).toContain('0 verified, 1 invalid')
    expect(before - (await balance())).toBe(usd('0.27') * 99n)
    expect(
      outputRows(out)
        .map((r) => r.row_number)
        .sort((a, b) => Number(a) - Number(b)),
    ).toEqual(Array.from({ length: 100 }, (_, n) => String(n + 1)))
  })

  const MB = 1024 * 1024
  const bigRow = (size: number) => `NL,${'A'.repeat(size)},68750110`
  const latin1 = `${HEADER}\n${CLEAN}\nNL,Caf\u00e9 Donald,68750110\n`
  let manyLines = `${HEADER}\n`
  for (let n = 1; n <= 3000; n++) manyLines += n === 2500 ? 'NL,Test BV \u00c9\u00ff,1\n' : `${CLEAN}\n`
  /** The malformed files of the audit, generated here (the large ones are never committed). */
  const MALFORMED: {
    name: string
    content: string | Buffer
    /** How the test writes `content` (default UTF-8). */
    encoding?: BufferEncoding
    args?: string[]
    code: number
    verified?: number
    stderr?: RegExp
    check?: (rows: Record<string, string>[]) => void
  }[] = [
    {
      name: 'an unclosed quote',
      content: `${HEADER}\n${CLEAN}\nNL,"Test BV Donald,68750110\n${CLEAN}\n`,
      code: 2,
      stderr: /is not a readable CSV file: a quoted cell opened after line 2 is never closed/,
    },
    {
      name: 'an Excel workbook given as CSV',
      content: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00, 0xb5, 0x55]),
      code: 2,
      stderr: /is not UTF-8: line 1 has the byte 0xB5 at column 11/,
    },
    { name: 'a UTF-8 BOM', content: `\uFEFF${HEADER}\n${CLEAN}\n`, code: 0, verified: 1 },
    { name: 'CRLF line ends', content: `${HEADER}\r\n${CLEAN}\r\n${CLEAN}\r\n`, code: 0, verified: 2 },
    { name: 'CR line ends', content: `${HEADER}\r${CLEAN}\r${CLEAN}\r`, code: 0, verified: 2 },
    {
      name: 'CRLF, LF and CR mixed',
      content: `${HEADER}\r\n${CLEAN}\n${CLEAN}\r${CLEAN}\r\n`,
      code: 0,
      verified: 3,
    },
    {
      name: 'a 1 MB cell',
      content: `${HEADER}\n${CLEAN}\n${bigRow(MB)}\n${CLEAN}\n`,
      code: 3,
      verified: 2,
      check: (rows) =>
        expect(rows[1]?.errors).toBe(
          `company_name: column "company" holds ${MB} characters, longer than any lead field (at most 1024): the row was not sent`,
        ),
    },
    {
      name: 'a 10 MB cell',
      content: `${HEADER}\n${bigRow(10 * MB)}\n${CLEAN}\n`,
      code: 3,
      verified: 1,
      check: (rows) => expect(rows[0]?.errors).toContain(`holds ${10 * MB} characters`),
    },
    {
      name: 'a duplicated header',
      content: `${HEADER},notes,notes,notes_2\n${CLEAN},first,second,third\n`,
      code: 0,
      verified: 1,
      check: (rows) => expect(rows[0]).toMatchObject({ notes: 'first', notes_3: 'second', notes_2: 'third' }),
    },
    {
      name: 'Latin-1 text',
      content: latin1,
      encoding: 'latin1',
      code: 2,
      stderr:
        /is not UTF-8: line 3 has the byte 0xE9 at column 7, which is not valid UTF-8\. .*--encoding latin1/,
    },
    {
      name: 'Latin-1 text with --encoding latin1',
      content: latin1,
      encoding: 'latin1',
      args: ['--encoding', 'latin1'],
      code: 0,
      verified: 2,
      check: (rows) => expect(rows[1]?.company).toBe('Caf\u00e9 Donald'),
    },
    {
      name: 'Latin-1 bytes past the first read (line 2501 of 3001)',
      content: manyLines,
      encoding: 'latin1',
      code: 2,
      stderr: /line 2501 has the byte 0xC9 at column 12/,
    },
    {
      name: 'UTF-16 with its BOM',
      content: `\uFEFF${HEADER}\n${CLEAN}\n`,
      encoding: 'utf16le',
      code: 2,
      stderr: /is not UTF-8: line 1 has the byte 0xFF at column 1/,
    },
    {
      name: 'empty lines',
      content: `${HEADER}\n\n${CLEAN}\n\n\n${CLEAN}\n\n`,
      code: 0,
      verified: 2,
      check: (rows) => expect(rows.map((r) => r.row_number)).toEqual(['1', '2']),
    },
    {
      name: 'a header row only',
      content: `${HEADER}\n`,
      code: 0,
      verified: 0,
      stderr: /done: 0\/0 rows/,
    },
    { name: 'an empty file', content: '', code: 2, stderr: /has no header row/ },
    {
      name: 'a trailing delimiter',
      content: `${HEADER},\n${CLEAN},\n`,
      code: 0,
      verified: 1,
      check: (rows) => expect(Object.keys(rows[0] ?? {})).toContain('column_4'),
    },
    {
      name: 'rows with too few and too many cells',
      content: `${HEADER}\nNL,Test BV Donald\n${CLEAN},extra\n`,
      code: 0,
      verified: 2,
    },
    {
      name: 'a quote inside an unquoted cell',
      content: `${HEADER}\nNL,Test "BV" Donald,68750110\n`,
      code: 0,
      verified: 1,
      check: (rows) => expect(rows[0]?.company).toBe('Test "BV" Donald'),
    },
    {
      name: 'cells a spreadsheet would run as formulas',
      content: `${HEADER},notes,=cmd\n${CLEAN},"=HYPERLINK(""http://evil.example"")",x\nNL,@SUM(A1),123,+31 6 1234,-1\n`,
      code: 3,
      verified: 1,
      check: (rows) => {
        expect(rows[0]?.notes).toBe(`'=HYPERLINK("http://evil.example")`)
        expect(rows[1]).toMatchObject({ company: `'@SUM(A1)`, notes: `'+31 6 1234`, "'=cmd": `'-1` })
        expect(rows[1]?.errors).toContain('kvk_number')
      },
    },
    {
      name: 'a right-to-left override in a cell',
      content: `${HEADER},notes\n${CLEAN},ok\nNL,Acme \u202efdp.exe,68750110,x\u202ey\n`,
      code: 3,
      verified: 1,
      check: (rows) => {
        // Refused by the service for the lead; never written raw into the output.
        expect(rows[1]).toMatchObject({ company: 'Acme [U+202E]fdp.exe', notes: 'x[U+202E]y' })
        expect(rows[1]?.errors).toContain('company_name: contains a bidirectional control character (U+202E')
      },
    },
  ]

  it.each(MALFORMED)('handles $name', async (file) => {
    const { name, content, encoding, args = [], code, verified, stderr, check } = file
    const slug = name.replace(/[^a-z0-9]+/gi, '-')
    const input = join(dir, `malformed-${slug}.csv`)
    const out = join(dir, `malformed-${slug}.results.csv`)
    writeFileSync(
      input,
      typeof content === 'string' ? Buffer.from(content.replaceAll('{tag}', slug), encoding) : content,
    )
    const before = await balance()
    const result = await runHere([input, '--out', out, ...args])
    expect(result.code, result.stderr).toBe(code)
    if (stderr) expect(result.stderr).toMatch(stderr)
    // Never a stack trace.
    expect(result.stderr).not.toMatch(/\n\s+at /)
    const rows = outputRows(out)
    if (code === 2) {
      // Refused before anything was sent, charged or written.
      expect(rows).toHaveLength(0)
      expect(await balance()).toBe(before)
      return
    }
    expect(rows.filter((r) => r.lead_status === 'verified')).toHaveLength(verified ?? 0)
    expect(before - (await balance())).toBe(usd('0.27') * BigInt(verified ?? 0))
    for (const row of rows) if (row.lead_status !== 'verified') expect(row.errors).not.toBe('')
    check?.(rows)
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
