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
import { Readable } from 'node:stream'
import { parseArgs } from 'node:util'
import cliProgress from 'cli-progress'
import { CsvError, type Options as CsvOptions, parse } from 'csv-parse'
import { parse as parseSync } from 'csv-parse/sync'
import { stringify } from 'csv-stringify/sync'
import { formatUsd } from '../core/money.ts'
import { neutraliseBidi } from '../core/validate/bidi.ts'
import type { CliCommand } from './command.ts'
import { checkUtf8Lines } from './utf8-lines.ts'

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
/**
 * No lead field is longer than 255 characters: a mapped cell longer than this is never sent (a
 * megabyte cell would make the batch's body too large for the service); its row gets its own error.
 */
export const MAX_CELL_CHARACTERS = 1024
/** A batch's body stays under this (the service's default body limit is 256 KB): fuller batches are split. */
const MAX_BATCH_BYTES = 192 * 1024
/** Input encodings: UTF-8 (checked, never guessed), or Windows-1252/Latin-1 when the caller says so. */
const ENCODINGS = ['utf8', 'latin1'] as const
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

/**
 * The header row with every name distinct, so no column is lost: a repeated name gets `_2`, `_3`
 * (`email`, `email_2`), an empty one `column_<n>` (a trailing delimiter).
 */
export function distinctHeaders(headers: readonly string[]): string[] {
  // A generated name never takes a name the file has itself (`notes, notes, notes_2`: the second
  // `notes` becomes `notes_3`).
  const given = new Set(headers)
  const used = new Set<string>()
  return headers.map((raw, index) => {
    const base = raw.trim() === '' ? `column_${index + 1}` : raw
    let name = base
    for (let n = 2; used.has(name) || (name !== raw && given.has(name)); n++) name = `${base}_${n}`
    used.add(name)
    return name
  })
}

/**
 * A cell as the output file holds it: one a spreadsheet would run as a formula (starting with `=`,
 * `+`, `-`, `@`, a tab or a carriage return: the OWASP CSV-injection rule) gets a leading `'`, so
 * a lead named `=HYPERLINK(...)` is shown as text, never run; a bidirectional control (U+202E ...)
 * is written as `[U+202E]`, so it cannot reorder the row where the file is opened.
 */
export function inertCell(value: string): string {
  const shown = neutraliseBidi(value)
  return /^[=+\-@\t\r]/.test(shown) ? `'${shown}` : shown
}

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

/**
 * The errors of a row that is not sent: a mapped cell longer than any lead field (MAX_CELL_CHARACTERS),
 * named by its column. Empty: the row can be sent.
 */
export function oversizedCells(
  row: Record<string, string>,
  columns: Map<string, string>,
): { field: string; message: string }[] {
  const errors: { field: string; message: string }[] = []
  for (const [header, field] of columns) {
    const length = (row[header] ?? '').trim().length
    if (length > MAX_CELL_CHARACTERS) {
      errors.push({
        field,
        message: `column "${header}" holds ${length} characters, longer than any lead field (at most ${MAX_CELL_CHARACTERS}): the row was not sent`,
      })
    }
  }
  return errors
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

/** The records of an output file and its header, its last, possibly half-written line left out. */
function readOutput(out: string): { text: string; header: string[]; records: Record<string, string>[] } {
  if (!existsSync(out) || statSync(out).size === 0) return { text: '', header: [], records: [] }
  let text = readFileSync(out, 'utf8')
  if (!text.endsWith('\n')) text = text.slice(0, text.lastIndexOf('\n') + 1)
  let header: string[] = []
  const records = parseSync(text, {
    columns: (names: string[]) => {
      header = names
      return names
    },
    relax_column_count: true,
    skip_empty_lines: true,
  }) as Record<string, string>[]
  return { text, header, records }
}

const isDone = (record: Record<string, string>) => record.lead_status === 'verified'

/**
 * Row numbers done in the output file: verified rows only. A row written as `invalid` (its own
 * error, or never answered) is not done: the next run sends it again (invalid leads are free).
 */
export function finishedRows(out: string): Set<number> {
  const done = new Set<number>()
  for (const record of readOutput(out).records) {
    const n = Number(record.row_number)
    if (Number.isInteger(n) && n > 0 && isDone(record)) done.add(n)
  }
  return done
}

/**
 * Readies the output file of a resumed run: drops a half-written last line and the rows that are
 * not done (they are written again by this run, so each row appears once), then returns the rows
 * done.
 */
export function prepareResume(out: string): Set<number> {
  const { text, header, records } = readOutput(out)
  if (header.length === 0) {
    if (existsSync(out)) truncateSync(out, 0)
    return new Set()
  }
  const kept = records.filter(isDone)
  if (kept.length !== records.length) {
    writeFileSync(out, stringify(kept, { header: true, columns: header }))
  } else if (Buffer.byteLength(text) !== statSync(out).size) {
    truncateSync(out, Buffer.byteLength(text))
  }
  return finishedRows(out)
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
        results: leads.map((_, i) => ({
          status: 'invalid',
          errors: errors.get(i) ?? [
            { field: 'lead', message: 'not verified: the service refused the batch' },
          ],
        })),
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

/** csv-parse options of the input: any mix of CRLF, LF and CR line ends; a stray quote inside a cell is text. */
const INPUT_OPTIONS: CsvOptions = {
  skip_empty_lines: true,
  bom: true,
  relax_column_count: true,
  relax_quotes: true,
  record_delimiter: ['\r\n', '\n', '\r'],
  info: true,
}

/** The input decoded as text (UTF-8, or Windows-1252 for `latin1`), as a stream csv-parse reads. */
function inputText(input: string, encoding: (typeof ENCODINGS)[number]): Readable {
  if (encoding === 'utf8') return createReadStream(input)
  // The WHATWG "latin1" label is Windows-1252 (what spreadsheets write): 0x80 is €, not a control.
  const decoder = new TextDecoder('latin1')
  return Readable.from(
    (async function* () {
      for await (const chunk of createReadStream(input))
        yield decoder.decode(chunk as Buffer, { stream: true })
      yield decoder.decode()
    })(),
  )
}

/** A CSV record with the line it ends on (csv-parse `info`). */
type InputRecord = { record: Record<string, string>; info: { lines: number } }

/** Why the input cannot be read, in words naming the line; the run stops before anything is sent. */
class InputError extends Error {}

/** Reads the input's records, turning csv-parse's failures into an InputError naming the line. */
async function* inputRecords(
  input: string,
  encoding: (typeof ENCODINGS)[number],
  onHeader: (names: string[]) => void = () => {},
): AsyncGenerator<InputRecord> {
  let lastLine = 0
  const options: CsvOptions = {
    ...INPUT_OPTIONS,
    columns: (names: string[]) => {
      const distinct = distinctHeaders(names)
      onHeader(distinct)
      return distinct
    },
  }
  try {
    for await (const item of inputText(input, encoding).pipe(parse(options)) as AsyncIterable<InputRecord>) {
      lastLine = item.info.lines
      yield item
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error
    const where =
      error.code === 'CSV_QUOTE_NOT_CLOSED'
        ? `a quoted cell opened after line ${lastLine} is never closed (the file ends at line ${(error as { lines?: number }).lines ?? '?'})`
        : `line ${(error as { lines?: number }).lines ?? lastLine + 1}: ${error.message}`
    throw new InputError(`${input} is not a readable CSV file: ${where}`)
  }
}

/**
 * Reads the whole input once before anything is sent: it must be UTF-8 (or `--encoding latin1`)
 * and well-formed CSV, else an InputError naming the line. Returns the number of data rows.
 */
async function scanInput(input: string, encoding: (typeof ENCODINGS)[number]): Promise<number> {
  if (encoding === 'utf8') {
    const bad = await checkUtf8Lines(createReadStream(input))
    if (bad) {
      throw new InputError(
        `${input} is not UTF-8: line ${bad.line} has the byte 0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')} at column ${bad.column}, which is not valid UTF-8. Save the file as UTF-8 (CSV UTF-8 in a spreadsheet), or pass --encoding latin1 if it is Latin-1 / Windows-1252; nothing was sent`,
      )
    }
  }
  let count = 0
  for await (const _ of inputRecords(input, encoding)) count++
  return count
}

/** Progress over all rows; the rate counts this run's rows only (a resumed run skips the rest). */
function createProgress(total: number, tty: boolean, already: number, stderr: LeadsVerifyIo['stderr']) {
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
      stderr.write(`leads ${done}/${total} (${pct}%) ${rate} leads/s ETA ${eta}s\n`)
    },
    stop: () => {},
  }
}

const USAGE = `usage: validation-cli leads verify <leads.csv> [--out results.csv] [--url URL] [--key KEY]
                                  [--batch-size 1-100] [--encoding utf8|latin1]
                                  [--progress | --no-progress]

Verifies NL and BE leads (POST /v1/leads/verify) in batches and writes every input row with the
extra columns ${RESULT_COLUMNS.join(', ')}.

  --out         output CSV (default: <input>.results.csv). If it exists, the verified rows in
                it are skipped (resume): they are not sent or paid again; rows written as
                invalid are sent again. After a hard kill during a call, <out>.pending names
                the rows in flight; the next run sends them first as the same batch (same
                Idempotency-Key), so a call that completed is answered again without a second
                charge (within 24 hours).
  --url         service URL (env VALIDATION_API_URL, default http://localhost:3000)
  --key         live API key (env VALIDATION_API_KEY); sandbox keys are refused (403)
  --batch-size  leads per call, 1-100 (default 100); each valid lead is charged once
  --encoding    utf8 (default: a file that is not UTF-8 is refused, naming the line) or latin1
                (Windows-1252 / ISO-8859-1, what spreadsheets save as "CSV" or "ANSI")
  --progress    progress bar (default: when stderr is a terminal; otherwise one line per batch)

Columns (header row; case, spaces and dashes ignored), with the accepted aliases:
${Object.entries(LEAD_COLUMNS)
  .map(([field, aliases]) => `  ${field.padEnd(13)} ${aliases.slice(1).join(', ')}`)
  .join('\n')}
Other columns are copied to the output; a repeated header name gets _2, _3 (email, email_2).
country is NL or BE. Output cells starting with =, +, -, @, a tab or a carriage return get a
leading ' so spreadsheets show them as text.

Exit codes: 0 every row verified; 1 the service refused or failed (finished rows are kept; run
again to resume); 2 bad arguments, or an input that is not UTF-8 or not well-formed CSV (the
line is named; nothing was sent); 3 done, but some rows were not verified (each has its error
in the errors column; run again to retry them); 130 interrupted (finished rows are kept).`

/**
 * Where `leads verify` writes its messages and reads its settings: the process's own, or a test's
 * (which runs the command in-process instead of starting a CLI process per case).
 */
export interface LeadsVerifyIo {
  stderr: { write(text: string): unknown; isTTY?: boolean }
  env: Record<string, string | undefined>
}

const PROCESS_IO: LeadsVerifyIo = { stderr: process.stderr, env: process.env }

export async function runLeadsVerify(args: string[], io: LeadsVerifyIo = PROCESS_IO): Promise<number> {
  const { stderr } = io
  let parsed: ReturnType<typeof parseOptions>
  try {
    parsed = parseOptions(args, io)
  } catch (error) {
    stderr.write(`${(error as Error).message}\n\n${USAGE}\n`)
    return 2
  }
  const { input, out, url, key, batchSize, encoding, progress: wantProgress } = parsed
  // The whole file is read once before anything is sent: a file that is not UTF-8 or not
  // well-formed CSV stops here (exit 2), with nothing sent, charged or written.
  let total: number
  try {
    total = await scanInput(input, encoding)
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    stderr.write(`${error.message}\n`)
    return 2
  }
  const done = prepareResume(out)
  const pendingFile = `${out}.pending`
  // The batch in flight when the last run was killed goes first, as it was sent: same rows, same
  // body, same Idempotency-Key, so a call that completed is replayed, not charged again.
  const inFlight = new Set(pendingRows(pendingFile).filter((row) => !done.has(row)))
  if (inFlight.size > 0)
    stderr.write(
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
  let outputColumns: { key: string; header: string }[] = []
  const writeHeader = !existsSync(out) || statSync(out).size === 0
  const progress = createProgress(total, wantProgress, done.size, stderr)
  let processed = done.size
  progress.update(processed)
  const counts = { verified: 0, invalid: 0, proceed: 0, review: 0, block: 0, skipped: done.size }
  let charged = 0n
  let replayedBatches = 0
  /** Rows of the next batch: a lead to send, or the errors that keep the row from being sent. */
  let batch: {
    row: number
    record: Record<string, string>
    lead?: Record<string, string>
    errors?: { field: string; message: string }[]
  }[] = []
  let batchBytes = 0

  /** Header checks and the output's header line, once the header row is known. */
  const startOutput = (names: string[]): number | undefined => {
    headers = names
    columns = mapColumns(headers)
    if (![...columns.values()].includes('country')) {
      progress.stop()
      stderr.write(`the CSV has no country column (headers: ${headers.join(', ')})\n`)
      return 2
    }
    outputColumns = [
      ...headers.filter((h) => !(RESULT_COLUMNS as readonly string[]).includes(h)),
      ...RESULT_COLUMNS,
    ].map((name) => ({ key: name, header: inertCell(name) }))
    if (writeHeader) writeFileSync(out, stringify([], { header: true, columns: outputColumns }))
    return undefined
  }

  const flush = async () => {
    if (batch.length === 0) return
    const sendable = batch.filter((b) => b.lead !== undefined)
    let answered: LeadResult[] = []
    if (sendable.length > 0) {
      writeFileSync(pendingFile, `${JSON.stringify({ rows: batch.map((b) => b.row) })}\n`)
      const { results, chargedMicros, replayed } = await verifyBatch(
        url,
        key,
        sendable.map((b) => b.lead as Record<string, string>),
      ).catch((error: unknown) => {
        // Refused by the service: nothing was charged for these rows.
        if (error instanceof HttpFailure) rmSync(pendingFile, { force: true })
        throw error
      })
      charged += chargedMicros
      if (replayed) replayedBatches++
      answered = results
    }
    let next = 0
    const lines = batch.map((b) => {
      const result: LeadResult =
        b.lead === undefined
          ? { status: 'invalid', errors: b.errors ?? [] }
          : (answered[next++] ?? {
              status: 'invalid',
              errors: [{ field: 'lead', message: 'not verified: the service sent no answer for this lead' }],
            })
      if (result.status === 'verified') {
        counts.verified++
        if (result.verdict === 'proceed' || result.verdict === 'review' || result.verdict === 'block')
          counts[result.verdict]++
      } else counts.invalid++
      const cells: Record<string, string> = { ...b.record, row_number: String(b.row), ...resultCells(result) }
      return Object.fromEntries(Object.entries(cells).map(([name, value]) => [name, inertCell(value)]))
    })
    await appendFile(out, stringify(lines, { columns: outputColumns }))
    rmSync(pendingFile, { force: true })
    processed += batch.length
    batch = []
    batchBytes = 0
    progress.update(processed)
  }

  try {
    /** Rows written by this run (the killed batch's rows are not taken again by the second pass). */
    const written = new Set<number>()
    /**
     * One pass over the input: the rows `take` selects go into batches (the killed batch's rows as
     * one batch of their own, `resending`); stops early once `finished` says so.
     */
    const pass = async (take: (row: number) => boolean, resending: boolean, finished: () => boolean) => {
      let row = 0
      for await (const { record } of inputRecords(input, encoding, (names) => {
        headers = names
      })) {
        if (outputColumns.length === 0) {
          const refused = startOutput(headers ?? Object.keys(record))
          if (refused !== undefined) return refused
        }
        row++
        if (!take(row)) continue
        written.add(row)
        const errors = oversizedCells(record, columns)
        const lead = errors.length === 0 ? leadOfRow(record, columns) : undefined
        const leadBytes = lead ? Buffer.byteLength(JSON.stringify(lead)) + 1 : 0
        // A batch's body stays under the service's body limit: a full one goes before this lead.
        if (!resending && batch.length > 0 && batchBytes + leadBytes > MAX_BATCH_BYTES) await flush()
        batch.push({ row, record, ...(lead ? { lead } : { errors }) })
        batchBytes += leadBytes
        if (resending) inFlight.delete(row)
        const full = resending ? inFlight.size === 0 || batch.length >= MAX_BATCH : batch.length >= batchSize
        if (full) await flush()
        if (interrupted || finished()) break
      }
      return undefined
    }
    // The rows of the killed batch go first, as a batch of their own whatever --batch-size is now,
    // so its body (and Idempotency-Key) is the one sent before.
    if (inFlight.size > 0) {
      const refused = await pass(
        (row) => inFlight.has(row),
        true,
        () => inFlight.size === 0,
      )
      if (refused !== undefined) return refused
      await flush()
    }
    if (!interrupted) {
      const refused = await pass(
        (row) => !done.has(row) && !written.has(row),
        false,
        () => false,
      )
      if (refused !== undefined) return refused
    }
    if (outputColumns.length === 0) {
      // No data row: a header row alone is a finished (empty) run; no header at all is an error.
      if (!headers) {
        progress.stop()
        stderr.write(`${input} has no header row (the file is empty); nothing was sent\n`)
        return 2
      }
      const refused = startOutput(headers)
      if (refused !== undefined) return refused
    }
    if (!interrupted) await flush()
  } catch (error) {
    progress.stop()
    if (error instanceof InputError) {
      stderr.write(`${error.message}\n`)
      return 2
    }
    stderr.write(
      `stopped: ${(error as Error).message}\n${processed} of ${total} rows are in ${out}; run the same command again to resume.\n`,
    )
    return 1
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
  progress.stop()
  const notVerified =
    counts.invalid > 0
      ? `; ${counts.invalid} row${counts.invalid === 1 ? '' : 's'} not verified: each has its own error in the errors column, and the next run sends ${counts.invalid === 1 ? 'it' : 'them'} again (invalid leads are not charged)`
      : ''
  const summary = `${interrupted ? 'interrupted' : 'done'}: ${processed}/${total} rows in ${out} (this run: ${counts.verified} verified, ${counts.invalid} invalid; proceed ${counts.proceed}, review ${counts.review}, block ${counts.block}; skipped ${counts.skipped} already done; charged ${formatUsd(charged)} USDC${replayedBatches > 0 ? `; ${replayedBatches} batch${replayedBatches === 1 ? '' : 'es'} answered from an earlier call, not charged again` : ''}${notVerified})\n`
  stderr.write(summary)
  if (interrupted) return 130
  return counts.invalid > 0 ? 3 : 0
}

function parseOptions(args: string[], io: LeadsVerifyIo) {
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
      encoding: { type: 'string' },
    },
  })
  const input = positionals[0]
  if (!input || positionals.length > 1) throw new Error('give one input CSV file')
  if (!existsSync(input)) throw new Error(`no such file: ${input}`)
  const key = values.key ?? io.env.VALIDATION_API_KEY
  if (!key) throw new Error('an API key is needed: --key or VALIDATION_API_KEY')
  const batchSize = Number(values['batch-size'] ?? MAX_BATCH)
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH)
    throw new Error(`--batch-size must be 1-${MAX_BATCH}`)
  const encoding = (values.encoding ?? 'utf8').toLowerCase().replace(/^utf-8$/, 'utf8')
  if (!(ENCODINGS as readonly string[]).includes(encoding))
    throw new Error(`--encoding must be utf8 (default) or latin1 (Windows-1252, what spreadsheets call ANSI)`)
  return {
    input,
    encoding: encoding as (typeof ENCODINGS)[number],
    out: values.out ?? input.replace(/(\.csv)?$/i, '.results.csv'),
    url: values.url ?? io.env.VALIDATION_API_URL ?? 'http://localhost:3000',
    key,
    batchSize,
    progress: values['no-progress'] ? false : (values.progress ?? io.stderr.isTTY === true),
  }
}

export const leadsVerifyCommand: CliCommand = {
  summary: 'Verify a CSV of NL/BE leads in batches (resumable), writing verdicts and actions',
  usage: USAGE,
  run: (args) => runLeadsVerify(args),
}
