/**
 * `validation-cli leads verify leads.csv --out results.csv`: reads a CSV of
 * leads with a header row, sends them to POST /v1/leads/verify in batches of up to 100, and
 * writes every input row with the verdict, score, flags and actions as extra columns.
 *
 * Resume: the output file is appended to batch by batch, each row with its `row_number` (1 = the
 * first data row). A run with the same --out skips the rows already in it, so finished rows are
 * never sent (nor paid) twice. SIGINT/SIGTERM stop after the batch in flight is written. Each
 * batch carries an Idempotency-Key derived from its exact body (`leads-` + SHA-256 hex), so a batch
 * sent again gets the service's stored answer, not charged again (within 24 hours): after a hard
 * kill while a batch is in flight, `<out>.pending` names its rows and the next run sends exactly
 * those rows first, as the same batch, so the call that completed is replayed for free.
 */
import { createHash } from 'node:crypto'
import {
  createReadStream,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { appendFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import cliProgress from 'cli-progress'
import { parse } from 'csv-parse'
import { parse as parseSync } from 'csv-parse/sync'
import { stringify } from 'csv-stringify/sync'
import { formatUsd } from '../core/money.ts'
import type { CliCommand } from './command.ts'

/** Request fields and the CSV column names accepted for each (compared after normalising). */
export const LEAD_COLUMNS: Record<string, readonly string[]> = {
  reference: ['reference', 'ref', 'id', 'lead_id', 'crm_id', 'external_id'],
  country: ['country', 'country_code', 'land', 'pays'],
  company_name: [
    'company_name',
    'company',
    'name',
    'account',
    'account_name',
    'organisation',
    'organization',
    'bedrijfsnaam',
    'bedrijf',
  ],
  kvk_number: ['kvk_number', 'kvk', 'kvk_nummer', 'kvknummer', 'coc', 'coc_number', 'chamber_of_commerce'],
  cbe_number: [
    'cbe_number',
    'cbe',
    'kbo',
    'kbo_number',
    'kbo_nummer',
    'enterprise_number',
    'ondernemingsnummer',
    'bce',
  ],
  vat_number: ['vat_number', 'vat', 'vat_id', 'btw', 'btw_nummer', 'btw_number', 'tva'],
  email: ['email', 'e_mail', 'email_address', 'mail', 'contact_email'],
  website: ['website', 'url', 'domain', 'web', 'site', 'homepage', 'company_website'],
  iban: ['iban', 'bank_account', 'rekeningnummer', 'account_number'],
  contact_name: ['contact_name', 'contact', 'contact_person', 'full_name', 'person'],
}

/** Columns the command adds to every row (after the input columns). */
export const RESULT_COLUMNS = [
  'row_number',
  'lead_status',
  'verdict',
  'lead_score',
  'flags',
  'actions',
  'flag_messages',
  'errors',
  'checked_at',
] as const

const MAX_BATCH = 100
const RETRIES = 3
/** 409 answers (the same batch still running after a kill) waited out before giving up: about 2 minutes. */
const IN_PROGRESS_RETRIES = 60

/** The batch's Idempotency-Key: the same rows sent again are the same key, so they are paid once. */
export function batchIdempotencyKey(body: string): string {
  return `leads-${createHash('sha256').update(body).digest('hex')}`
}

const normalise = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')

/** Header → request field, for the columns the command knows; unknown columns are kept as they are. */
export function mapColumns(headers: readonly string[]): Map<string, string> {
  const byAlias = new Map<string, string>()
  for (const [field, aliases] of Object.entries(LEAD_COLUMNS))
    for (const alias of aliases) byAlias.set(alias, field)
  const mapped = new Map<string, string>()
  const taken = new Set<string>()
  for (const header of headers) {
    const field = byAlias.get(normalise(header))
    if (field && !taken.has(field)) {
      mapped.set(header, field)
      taken.add(field)
    }
  }
  return mapped
}

/** One CSV row → the lead to send: empty cells left out, country upper-case, website a bare domain. */
export function leadOfRow(row: Record<string, string>, columns: Map<string, string>): Record<string, string> {
  const lead: Record<string, string> = {}
  for (const [header, field] of columns) {
    let value = (row[header] ?? '').trim()
    if (value === '') continue
    if (field === 'country') value = value.toUpperCase()
    if (field === 'website')
      value = value
        .replace(/^[a-z]+:\/\//i, '')
        .replace(/[/?#].*$/, '')
        .toLowerCase()
    if (field === 'iban') value = value.replace(/\s+/g, '').toUpperCase()
    lead[field] = value
  }
  return lead
}

interface Flag {
  code: string
  action: string
  message: string
}
interface LeadResult {
  status: 'verified' | 'invalid'
  verdict?: string
  lead_score?: number
  flags?: Flag[]
  errors?: { field: string; message: string }[]
  checked_at?: string
}

function resultCells(result: LeadResult): Record<string, string> {
  const flags = result.flags ?? []
  return {
    lead_status: result.status,
    verdict: result.verdict ?? '',
    lead_score: result.lead_score === undefined ? '' : String(result.lead_score),
    flags: flags.map((f) => f.code).join('; '),
    actions: [...new Set(flags.map((f) => f.action))].join('; '),
    flag_messages: flags.map((f) => f.message).join(' | '),
    errors: (result.errors ?? []).map((e) => `${e.field}: ${e.message}`).join('; '),
    checked_at: result.checked_at ?? '',
  }
}

/** Row numbers already in the output file (its last, possibly half-written line is dropped). */
export function finishedRows(out: string): Set<number> {
  const done = new Set<number>()
  if (!existsSync(out) || statSync(out).size === 0) return done
  let text = readFileSync(out, 'utf8')
  if (!text.endsWith('\n')) {
    text = text.slice(0, text.lastIndexOf('\n') + 1)
    truncateSync(out, Buffer.byteLength(text))
  }
  const records = parseSync(text, {
    columns: true,
    relax_column_count: true,
    skip_empty_lines: true,
  }) as Record<string, string>[]
  for (const record of records) {
    const n = Number(record.row_number)
    if (Number.isInteger(n) && n > 0 && record.lead_status) done.add(n)
  }
  return done
}

/** Rows of the batch that was in flight when a run was killed (`<out>.pending`). */
function pendingRows(file: string): number[] {
  if (!existsSync(file)) return []
  try {
    const rows = (JSON.parse(readFileSync(file, 'utf8')) as { rows?: unknown }).rows
    return Array.isArray(rows) ? rows.filter((r): r is number => Number.isInteger(r)) : []
  } catch {
    return []
  }
}

function rangeText(rows: number[]): string {
  const sorted = [...rows].sort((a, b) => a - b)
  return sorted.length > 1 ? `${sorted[0]}-${sorted[sorted.length - 1]}` : String(sorted[0])
}

class HttpFailure extends Error {
  readonly status: number
  readonly body: unknown

  constructor(status: number, body: unknown) {
    super(`HTTP ${status}: ${JSON.stringify(body).slice(0, 500)}`)
    this.status = status
    this.body = body
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Why a request never got an answer, in words: fetch says only "fetch failed" and keeps the reason
 * (ECONNREFUSED, ENOTFOUND, a TLS error, a timeout) in its `cause`.
 */
export function connectionCause(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause
  if (cause && typeof cause.message === 'string' && cause.message) {
    return typeof cause.code === 'string' && !cause.message.includes(cause.code)
      ? `${cause.code}: ${cause.message}`
      : cause.message
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * Sends one batch with its Idempotency-Key; a 422 (or a 400 for a missing field, which carries the
 * same field list) whose problems all name a lead is answered as per-lead errors. `replayed`: the service answered from an earlier call of the same batch.
 */
async function verifyBatch(
  url: string,
  key: string,
  leads: Record<string, string>[],
): Promise<{ results: LeadResult[]; chargedMicros: bigint; replayed: boolean }> {
  const body = JSON.stringify({ leads })
  const idempotencyKey = batchIdempotencyKey(body)
  let busy = 0
  for (let attempt = 1; ; attempt++) {
    let response: Response
    const endpoint = `${url.replace(/\/$/, '')}/v1/leads/verify`
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'idempotency-key': idempotencyKey },
        body,
      })
    } catch (error) {
      if (attempt >= RETRIES) throw new Error(`cannot reach ${endpoint}: ${connectionCause(error)}`)
      await sleep(500 * 2 ** attempt)
      continue
    }
    const answer = (await response.json().catch(() => null)) as Record<string, unknown> | null
    if (response.ok) {
      const charged = response.headers.get('x-charged-amount')
      return {
        results: (answer?.leads ?? []) as LeadResult[],
        chargedMicros: BigInt(charged ?? '0'),
        replayed: response.headers.get('idempotent-replayed') === 'true',
      }
    }
    if (response.status === 409 && busy < IN_PROGRESS_RETRIES) {
      // The same batch is still running (sent by a run that was killed): wait for its answer.
      busy++
      attempt--
      const retryAfter = Number(response.headers.get('retry-after'))
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 2000)
      continue
    }
    if ((response.status === 422 || response.status === 400) && Array.isArray(answer?.detail)) {
      // Every lead invalid: not charged; each row gets its own errors.
      const errors = new Map<number, { field: string; message: string }[]>()
      for (const problem of answer.detail as { field: string; message: string }[]) {
        const match = /^leads\.(\d+)\.?(.*)$/.exec(problem.field)
        if (!match) throw new HttpFailure(response.status, answer)
        const index = Number(match[1])
        errors.set(index, [
          ...(errors.get(index) ?? []),
          { field: match[2] || 'lead', message: problem.message },
        ])
      }
      return {
        results: leads.map((_, i) => ({ status: 'invalid', errors: errors.get(i) ?? [] })),
        chargedMicros: 0n,
        replayed: false,
      }
    }
    if ((response.status >= 500 || response.status === 429) && attempt < RETRIES) {
      const retryAfter = Number(response.headers.get('retry-after'))
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 500 * 2 ** attempt)
      continue
    }
    throw new HttpFailure(response.status, answer)
  }
}

async function countRows(input: string): Promise<number> {
  let count = 0
  for await (const _ of createReadStream(input).pipe(
    parse({ columns: true, skip_empty_lines: true, bom: true }),
  ))
    count++
  return count
}

/** Progress over all rows; the rate counts this run's rows only (a resumed run skips the rest). */
function createProgress(total: number, tty: boolean, already: number) {
  const started = Date.now()
  let last = 0
  const stats = (done: number) => {
    const seconds = (Date.now() - started) / 1000
    const rate = seconds > 0 ? (done - already) / seconds : 0
    const eta = rate > 0 ? Math.round((total - done) / rate) : 0
    return { rate: rate.toFixed(1), eta }
  }
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        format: 'leads |{bar}| {percentage}% {value}/{total} | {rate} leads/s | ETA {eta_text}',
      },
      cliProgress.Presets.shades_classic,
    )
    bar.start(total, 0, { rate: '0.0', eta_text: '?' })
    return {
      update: (done: number) => {
        const { rate, eta } = stats(done)
        bar.update(done, { rate, eta_text: Number(rate) > 0 ? `${eta}s` : '?' })
      },
      stop: () => bar.stop(),
    }
  }
  return {
    update(done: number) {
      if (done === last) return
      last = done
      const { rate, eta } = stats(done)
      const pct = total > 0 ? Math.round((done / total) * 100) : 100
      process.stderr.write(`leads ${done}/${total} (${pct}%) ${rate} leads/s ETA ${eta}s\n`)
    },
    stop: () => {},
  }
}

const USAGE = `usage: validation-cli leads verify <leads.csv> [--out results.csv] [--url URL] [--key KEY]
                                  [--batch-size 1-100] [--progress | --no-progress]

Verifies NL and BE leads (POST /v1/leads/verify) in batches and writes every input row with the
extra columns ${RESULT_COLUMNS.join(', ')}.

  --out         output CSV (default: <input>.results.csv). If it exists, the rows already in it
                are skipped (resume): finished rows are not sent or paid again. After a hard
                kill during a call, <out>.pending names the rows in flight; the next run sends
                them first as the same batch (same Idempotency-Key), so a call that completed
                is answered again without a second charge (within 24 hours).
  --url         service URL (env VALIDATION_API_URL, default http://localhost:3000)
  --key         live API key (env VALIDATION_API_KEY); sandbox keys are refused (403)
  --batch-size  leads per call, 1-100 (default 100); each valid lead is charged once
  --progress    progress bar (default: when stderr is a terminal; otherwise one line per batch)

Columns (header row; case, spaces and dashes ignored), with the accepted aliases:
${Object.entries(LEAD_COLUMNS)
  .map(([field, aliases]) => `  ${field.padEnd(13)} ${aliases.slice(1).join(', ')}`)
  .join('\n')}
Other columns are copied to the output unchanged. country is NL or BE.

Exit codes: 0 done; 1 the service refused or failed (finished rows are kept; run again to
resume); 2 bad arguments; 130 interrupted (finished rows are kept).`

export async function runLeadsVerify(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>
  try {
    parsed = parseOptions(args)
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`)
    return 2
  }
  const { input, out, url, key, batchSize, progress: wantProgress } = parsed
  const total = await countRows(input)
  const done = finishedRows(out)
  const pendingFile = `${out}.pending`
  // The batch in flight when the last run was killed goes first, as it was sent: same rows, same
  // body, same Idempotency-Key, so a call that completed is replayed, not charged again.
  const inFlight = new Set(pendingRows(pendingFile).filter((row) => !done.has(row)))
  if (inFlight.size > 0)
    process.stderr.write(
      `resuming: rows ${rangeText([...inFlight])} were in flight when the last run stopped; they are sent again as the same batch (a call that completed is not charged again)\n`,
    )
  else rmSync(pendingFile, { force: true })
  let interrupted = false
  const stop = () => {
    interrupted = true
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)

  let headers: string[] | undefined
  let columns = new Map<string, string>()
  let outputColumns: string[] = []
  const writeHeader = !existsSync(out) || statSync(out).size === 0
  const progress = createProgress(total, wantProgress, done.size)
  let processed = done.size
  progress.update(processed)
  const counts = { verified: 0, invalid: 0, proceed: 0, review: 0, block: 0, skipped: done.size }
  let charged = 0n
  let replayedBatches = 0
  let batch: { row: number; record: Record<string, string>; lead: Record<string, string> }[] = []

  const flush = async () => {
    if (batch.length === 0) return
    writeFileSync(pendingFile, `${JSON.stringify({ rows: batch.map((b) => b.row) })}\n`)
    const { results, chargedMicros, replayed } = await verifyBatch(
      url,
      key,
      batch.map((b) => b.lead),
    ).catch((error: unknown) => {
      // Refused by the service: nothing was charged for these rows.
      if (error instanceof HttpFailure) rmSync(pendingFile, { force: true })
      throw error
    })
    charged += chargedMicros
    if (replayed) replayedBatches++
    const lines = batch.map((b, i) => {
      const result = results[i] ?? {
        status: 'invalid' as const,
        errors: [{ field: 'lead', message: 'no answer' }],
      }
      if (result.status === 'verified') {
        counts.verified++
        if (result.verdict === 'proceed' || result.verdict === 'review' || result.verdict === 'block')
          counts[result.verdict]++
      } else counts.invalid++
      return { ...b.record, row_number: String(b.row), ...resultCells(result) }
    })
    await appendFile(out, stringify(lines, { columns: outputColumns }))
    rmSync(pendingFile, { force: true })
    processed += batch.length
    batch = []
    progress.update(processed)
  }

  try {
    let row = 0
    const records = createReadStream(input).pipe(
      parse({ columns: (h: string[]) => h, skip_empty_lines: true, bom: true, relax_column_count: true }),
    )
    for await (const record of records as AsyncIterable<Record<string, string>>) {
      if (!headers) {
        headers = Object.keys(record)
        columns = mapColumns(headers)
        if (![...columns.values()].includes('country')) {
          progress.stop()
          process.stderr.write(`the CSV has no country column (headers: ${headers.join(', ')})\n`)
          return 2
        }
        outputColumns = [
          ...headers.filter((h) => !(RESULT_COLUMNS as readonly string[]).includes(h)),
          ...RESULT_COLUMNS,
        ]
        if (writeHeader) writeFileSync(out, stringify([], { header: true, columns: outputColumns }))
      }
      row++
      if (done.has(row)) continue
      const resent = inFlight.delete(row)
      batch.push({ row, record, lead: leadOfRow(record, columns) })
      // The rows of the killed batch are a batch of their own, whatever --batch-size is now.
      const full = resent ? inFlight.size === 0 || batch.length >= MAX_BATCH : batch.length >= batchSize
      if (full) await flush()
      if (interrupted) break
    }
    if (!interrupted) await flush()
  } catch (error) {
    progress.stop()
    process.stderr.write(
      `stopped: ${(error as Error).message}\n${processed} of ${total} rows are in ${out}; run the same command again to resume.\n`,
    )
    return 1
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
  progress.stop()
  const summary = `${interrupted ? 'interrupted' : 'done'}: ${processed}/${total} rows in ${out} (this run: ${counts.verified} verified, ${counts.invalid} invalid; proceed ${counts.proceed}, review ${counts.review}, block ${counts.block}; skipped ${counts.skipped} already done; charged ${formatUsd(charged)} USDC${replayedBatches > 0 ? `; ${replayedBatches} batch${replayedBatches === 1 ? '' : 'es'} answered from an earlier call, not charged again` : ''})\n`
  process.stderr.write(summary)
  return interrupted ? 130 : 0
}

function parseOptions(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      url: { type: 'string' },
      key: { type: 'string' },
      'batch-size': { type: 'string' },
      progress: { type: 'boolean' },
      'no-progress': { type: 'boolean' },
    },
  })
  const input = positionals[0]
  if (!input || positionals.length > 1) throw new Error('give one input CSV file')
  if (!existsSync(input)) throw new Error(`no such file: ${input}`)
  const key = values.key ?? process.env.VALIDATION_API_KEY
  if (!key) throw new Error('an API key is needed: --key or VALIDATION_API_KEY')
  const batchSize = Number(values['batch-size'] ?? MAX_BATCH)
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH)
    throw new Error(`--batch-size must be 1-${MAX_BATCH}`)
  return {
    input,
    out: values.out ?? input.replace(/(\.csv)?$/i, '.results.csv'),
    url: values.url ?? process.env.VALIDATION_API_URL ?? 'http://localhost:3000',
    key,
    batchSize,
    progress: values['no-progress'] ? false : (values.progress ?? process.stderr.isTTY === true),
  }
}

export const leadsVerifyCommand: CliCommand = {
  summary: 'Verify a CSV of NL/BE leads in batches (resumable), writing verdicts and actions',
  usage: USAGE,
  run: runLeadsVerify,
}
