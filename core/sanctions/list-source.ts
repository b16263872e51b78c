import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { Readable } from 'node:stream'
import unbzip2 from 'unbzip2-stream'
import { ServiceError } from '../errors.ts'
import { parseEuXml } from './eu-parser.ts'
import { ListParseError } from './list-parse-error.ts'
import { parseOfacAdvancedXml } from './ofac-advanced-parser.ts'
import { parseOfacSdnCsv } from './ofac-csv-parser.ts'
import { LIST_KEY_OF_FORMAT, type ListFormat, type ListKey, type ParsedList } from './types.ts'
import { parseUnXml } from './un-parser.ts'
import type { ListInput } from './xml-stream.ts'

/**
 * Loading a list file from an official URL or a local path, without parsing policy: bytes,
 * checksum and detected format. The daily refresh (later) stores the checksum to skip
 * unchanged downloads and records the version; it injects `fetch` and the timeout.
 */

export interface LoadListSourceOptions {
  /** Whole-download timeout for URLs, in milliseconds (default 120 s). */
  timeoutMs?: number
  /** Injected fetch (default: the global fetch). */
  fetch?: typeof globalThis.fetch
  /** Refuse larger downloads or decompressed content (default 512 MiB). */
  maxBytes?: number
  /** Download progress of a URL source: bytes received so far and the declared total (null when not declared). */
  onProgress?: (received: number, total: number | null) => void
}

export interface ListSource {
  /** The URL or path as given. */
  source: string
  /** Content bytes, decompressed when the source was bzip2. */
  bytes: Uint8Array
  /** Hex SHA-256 of `bytes` (the decompressed content), so a recompressed copy hashes the same. */
  sha256: string
  format: ListFormat
  list_key: ListKey
  /** True when the source was bzip2 (by magic bytes, whatever its name). */
  bz2: boolean
}

const DEFAULT_TIMEOUT_MS = 120_000
const DEFAULT_MAX_BYTES = 512 * 1024 * 1024

/** bzip2 magic: "BZh" followed by the block size digit 1-9. */
export function isBz2(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x42 &&
    bytes[1] === 0x5a &&
    bytes[2] === 0x68 &&
    bytes[3]! >= 0x31 &&
    bytes[3]! <= 0x39
  )
}

/**
 * Decompresses a bzip2 stream with unbzip2-stream (pure JS, streaming). A truncated or corrupt
 * archive rejects with ListParseError. Note: unbzip2-stream runs at about 10 MB/s of output,
 * so the 120 MB OFAC file takes ~12 s; the official URLs serve plain XML.
 */
export function bz2Decompress(input: AsyncIterable<Uint8Array> | Uint8Array): AsyncIterable<Uint8Array> {
  const decompressor = unbzip2()
  const source = input instanceof Uint8Array ? Readable.from([Buffer.from(input)]) : Readable.from(input)
  source.on('error', (error) => decompressor.emit('error', error))
  source.pipe(decompressor)
  const output = new Readable({ read() {} })
  decompressor.on('data', (chunk: Buffer) => output.push(chunk))
  decompressor.on('end', () => output.push(null))
  decompressor.on('error', (error: unknown) =>
    output.destroy(
      new ListParseError('unknown', 'unknown', `corrupt or truncated bzip2 data: ${String(error)}`, {
        cause: error,
      }),
    ),
  )
  return output
}

async function collect(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes: number,
  source: string,
  onChunk?: (received: number) => void,
): Promise<Buffer> {
  const parts: Buffer[] = []
  let size = 0
  for await (const chunk of chunks) {
    size += chunk.length
    onChunk?.(size)
    if (size > maxBytes)
      throw new ServiceError('payload_too_large', `list source ${source} exceeds ${maxBytes} bytes`)
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length))
  }
  return Buffer.concat(parts, size)
}

/** Skips a BOM, whitespace, the XML declaration, comments and a DOCTYPE; returns the root's local name. */
function xmlRootName(head: string): string | null {
  let rest = head.replace(/^\uFEFF/, '')
  for (;;) {
    rest = rest.trimStart()
    if (rest.startsWith('<?')) rest = rest.slice(rest.indexOf('?>') + 2)
    else if (rest.startsWith('<!--')) rest = rest.slice(rest.indexOf('-->') + 3)
    else if (rest.startsWith('<!')) rest = rest.slice(rest.indexOf('>') + 1)
    else break
    if (rest.length === 0) return null
  }
  const match = /^<([A-Za-z_][\w.:-]*)/.exec(rest)
  if (!match) return null
  const qname = match[1]!
  return qname.slice(qname.indexOf(':') + 1)
}

const ROOT_FORMATS: Readonly<Record<string, ListFormat>> = {
  Sanctions: 'ofac_sdn_advanced_xml',
  CONSOLIDATED_LIST: 'un_xml',
  export: 'eu_fsf_xml',
  WHOLE: 'eu_legacy_xml',
}

/**
 * Detects a list's format from its first bytes (root element, or the SDN CSV row shape).
 * Throws ListParseError for anything else, including OFAC's classic sdn.xml, which this
 * service does not read (sdn_advanced.xml carries the same data with typed name parts).
 */
export function detectListFormat(bytes: Uint8Array): ListFormat {
  if (isBz2(bytes)) throw new ListParseError('unknown', 'unknown', 'content is still bzip2-compressed')
  const head = new TextDecoder('utf-8').decode(bytes.subarray(0, 64 * 1024))
  const root = xmlRootName(head)
  if (root) {
    const format = ROOT_FORMATS[root]
    if (format) return format
    if (root === 'sdnList') {
      throw new ListParseError(
        'ofac_sdn',
        'unknown',
        'classic OFAC sdn.xml is not supported; use sdn_advanced.xml',
      )
    }
    throw new ListParseError('unknown', 'unknown', `unrecognised XML root element <${root}>`)
  }
  if (/^\d+,"[^"]*",/.test(head)) return 'ofac_sdn_csv'
  throw new ListParseError(
    'unknown',
    'unknown',
    'unrecognised list format (neither a known XML root nor SDN CSV)',
  )
}

async function download(url: string, options: LoadListSourceOptions, maxBytes: number): Promise<Buffer> {
  const fetchImpl = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  let response: Response
  try {
    response = await fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' })
  } catch (error) {
    throw new ServiceError('unavailable', `list download from ${url} failed: ${describe(error, timeoutMs)}`, {
      cause: error,
    })
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {})
    throw new ServiceError('unavailable', `list download from ${url} failed: HTTP ${response.status}`)
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {})
    throw new ServiceError(
      'payload_too_large',
      `list source ${url} declares ${declared} bytes (limit ${maxBytes})`,
    )
  }
  if (!response.body) throw new ServiceError('unavailable', `list download from ${url} returned no body`)
  try {
    const total = Number.isFinite(declared) ? declared : null
    const onChunk = options.onProgress
      ? (received: number) => options.onProgress?.(received, total)
      : undefined
    return await collect(response.body as unknown as AsyncIterable<Uint8Array>, maxBytes, url, onChunk)
  } catch (error) {
    if (error instanceof ServiceError) throw error
    throw new ServiceError('unavailable', `list download from ${url} failed: ${describe(error, timeoutMs)}`, {
      cause: error,
    })
  }
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `timed out after ${timeoutMs} ms`
  }
  if (!(error instanceof Error)) return String(error)
  // fetch reports "fetch failed" and keeps the reason (ENOTFOUND host, ECONNREFUSED ...) in `cause`.
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const detail =
    typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : ''
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message
}

/**
 * Reads a list from an http(s) URL (fetch with a timeout) or a file path, decompresses bzip2
 * (detected by magic bytes), and returns the bytes, their SHA-256 and the detected format.
 * Download failures throw ServiceError('unavailable'); unrecognised or corrupt content throws
 * ListParseError. It never parses the list itself (see parseListSource).
 */
export async function loadListSource(
  source: string,
  options: LoadListSourceOptions = {},
): Promise<ListSource> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const isUrl = /^https?:\/\//i.test(source)
  let raw: Buffer
  if (isUrl) raw = await download(source, options, maxBytes)
  else {
    try {
      raw = await readFile(source)
    } catch (error) {
      throw new ServiceError('unavailable', `cannot read list file ${source}: ${describe(error, 0)}`, {
        cause: error,
      })
    }
  }
  const bz2 = isBz2(raw)
  const bytes = bz2 ? await collect(bz2Decompress(raw), maxBytes, source) : raw
  const format = detectListFormat(bytes)
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  return { source, bytes, sha256, format, list_key: LIST_KEY_OF_FORMAT[format], bz2 }
}

/**
 * Parses list content of a known format. The OFAC CSV here is sdn.csv alone; pass the side
 * files through parseOfacSdnCsv directly when you have them.
 */
export async function parseList(input: ListInput, format: ListFormat): Promise<ParsedList> {
  switch (format) {
    case 'ofac_sdn_advanced_xml':
      return parseOfacAdvancedXml(input)
    case 'un_xml':
      return parseUnXml(input)
    case 'eu_fsf_xml':
    case 'eu_legacy_xml': {
      const parsed = await parseEuXml(input)
      if (parsed.format !== format) {
        throw new ListParseError('eu', format, `content is ${parsed.format}, not ${format}`)
      }
      return parsed
    }
    case 'ofac_sdn_csv': {
      if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
        throw new ListParseError('ofac_sdn', format, 'the CSV parser needs the whole file as text or bytes')
      }
      return parseOfacSdnCsv({ sdn: input })
    }
  }
}

/** Parses a loaded source by its detected format. */
export function parseListSource(source: ListSource): Promise<ParsedList> {
  return parseList(source.bytes, source.format)
}

/**
 * Streams a local list file (bzip2 or plain) straight into the parser without holding the
 * whole content in memory; the format is detected from the first decompressed bytes.
 */
export async function parseListFile(path: string): Promise<ParsedList> {
  let head: Uint8Array
  try {
    head = await readHead(path, 8)
  } catch (error) {
    throw new ServiceError('unavailable', `cannot read list file ${path}: ${describe(error, 0)}`, {
      cause: error,
    })
  }
  const fileStream = createReadStream(path, { highWaterMark: 1 << 20 })
  const content: AsyncIterable<Uint8Array> = isBz2(head) ? bz2Decompress(fileStream) : fileStream
  const iterator = content[Symbol.asyncIterator]()
  const first = await iterator.next()
  if (first.done) throw new ListParseError('unknown', 'unknown', `list file ${path} is empty`)
  const format = detectListFormat(first.value)
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield first.value as Uint8Array
    for (;;) {
      const next = await iterator.next()
      if (next.done) return
      yield next.value
    }
  }
  if (format === 'ofac_sdn_csv') return parseList(await collect(replay(), DEFAULT_MAX_BYTES, path), format)
  return parseList(replay(), format)
}

async function readHead(path: string, length: number): Promise<Uint8Array> {
  const stream = createReadStream(path, { start: 0, end: length - 1 })
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
