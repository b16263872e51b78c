import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { bz2Decompress } from '../../../core/sanctions/list-source.ts'
import { sanctionsDataDir } from '../real-list-tests.ts'

/**
 * Test-only access to the real sanctions list copies in ../shared/data/sanctions (see its
 * README), plus deliberately independent raw readers: the tests read names, ids and addresses
 * straight from the raw files with plain regular expressions, never through the parsers under
 * test, and compare.
 */

export { sanctionsDataDir }

export function sanctionsDataPath(relative: string): string {
  return path.join(sanctionsDataDir(), relative)
}

export const OFAC_ADVANCED = {
  '2025-11-19': 'ofac/sdn_advanced/2025-11-19/sdn_advanced.xml.bz2',
  '2025-10-30': 'ofac/sdn_advanced/2025-10-30/sdn_advanced.xml.bz2',
  '2024-12-19': 'ofac/sdn_advanced/2024-12-19/sdn_advanced.xml.bz2',
} as const

export const UN_FILES = {
  '2026-02-27': 'un/2026-02-27/UN_consolidated.xml',
  '2025-11-18': 'un/2025-11-18/un_consolidated.xml',
  '2025-04-19': 'un/2025-04-19/UN.xml',
} as const

export const EU_LEGACY_FILE = 'eu/legacy-2016-02-11/data.xml'

/** beforeAll budget for hooks that decompress and parse the 120 MB OFAC file(s) on a busy machine. */
export const BIG_LIST_HOOK_TIMEOUT_MS = 180_000

/**
 * Decompresses a shared .bz2 copy, once per machine: the output is cached in the OS temp folder
 * (keyed by file, size and mtime) and shared by the test files that need the same list. Uses the
 * system bzip2 when present (about 2 s for the 120 MB OFAC file), else the project's pure-JS
 * unbzip2 path (about 12 s).
 */
export async function readBz2(relative: string): Promise<Buffer> {
  const file = sanctionsDataPath(relative)
  const cached = decompressedPath(relative)
  if (existsSync(cached)) return readFileSync(cached)
  let content: Buffer
  const result = spawnSync('bzip2', ['-dc', file], { maxBuffer: 512 * 1024 * 1024 })
  if (result.status === 0 && result.stdout.length > 0) content = result.stdout
  else {
    const chunks: Buffer[] = []
    for await (const chunk of bz2Decompress(readFileSync(file))) chunks.push(Buffer.from(chunk))
    content = Buffer.concat(chunks)
  }
  mkdirSync(path.dirname(cached), { recursive: true })
  const partial = `${cached}.${process.pid}.tmp`
  writeFileSync(partial, content)
  renameSync(partial, cached)
  return content
}

/** Where readBz2 keeps the decompressed copy of a shared .bz2 file. */
function decompressedPath(relative: string): string {
  const stat = statSync(sanctionsDataPath(relative))
  const name = `${relative.replace(/[^\w.-]+/g, '_')}-${stat.size}-${stat.mtimeMs}.xml`
  return path.join(tmpdir(), 'sanctions-test-cache', name)
}

/**
 * The decompressed copy of a shared .bz2 file on disk (see readBz2), for a service to read as a
 * plain list file, as the official sources serve them.
 */
export async function decompressedSharedFile(relative: string): Promise<string> {
  await readBz2(relative)
  return decompressedPath(relative)
}

export function readShared(relative: string): Buffer {
  return readFileSync(sanctionsDataPath(relative))
}

/** Decodes the five predefined XML entities and numeric character references. */
export function decodeXml(text: string): string {
  return text
    .replace(/&#x([0-9a-fA-F]+);/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number.parseInt(dec, 10)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
}

/** A raw record: its id and every name written in it. */
export interface RawRecord {
  id: string
  names: string[]
  block: string
}

/** Every `<tag ...>...</tag>` block of the text with its first capture (attribute or child). */
function blocks(text: string, open: RegExp, close: string): Array<{ id: string; block: string }> {
  const result: Array<{ id: string; block: string }> = []
  open.lastIndex = 0
  for (let match = open.exec(text); match !== null; match = open.exec(text)) {
    const end = text.indexOf(close, match.index)
    if (end < 0) break
    result.push({ id: match[1]!, block: text.slice(match.index, end + close.length) })
    open.lastIndex = end
  }
  return result
}

/**
 * OFAC SDN Advanced: each DistinctParty with its FixedRef and each DocumentedName as its
 * NamePartValue texts joined by spaces in document order (not in "Last, First" order, so a hit
 * exercises word-order-insensitive matching too).
 */
export function rawOfacParties(xml: string): RawRecord[] {
  return blocks(xml, /<DistinctParty FixedRef="(\d+)">/g, '</DistinctParty>').map(({ id, block }) => {
    const names: string[] = []
    for (const documented of block.matchAll(/<DocumentedName [^>]*>([\s\S]*?)<\/DocumentedName>/g)) {
      const parts = [...documented[1]!.matchAll(/<NamePartValue [^>]*>([^<]*)<\/NamePartValue>/g)].map(
        (part) => decodeXml(part[1]!).trim(),
      )
      if (parts.length > 0) names.push(parts.join(' '))
    }
    return { id, names, block }
  })
}

/** All DistinctParty FixedRefs of an OFAC advanced file. */
export function rawOfacFixedRefs(xml: string): Set<string> {
  return new Set([...xml.matchAll(/<DistinctParty FixedRef="(\d+)">/g)].map((match) => match[1]!))
}

/** Distinct "CURRENCY address" pairs of an OFAC advanced file, read with regexes. */
export function rawOfacAddressPairs(xml: string): Set<string> {
  const currencyOfType = new Map<string, string>()
  for (const match of xml.matchAll(
    /<FeatureType ID="(\d+)"[^>]*>Digital Currency Address - ([^<]+)<\/FeatureType>/g,
  )) {
    currencyOfType.set(match[1]!, match[2]!.trim())
  }
  const pairs = new Set<string>()
  for (const match of xml.matchAll(
    /<Feature ID="\d+" FeatureTypeID="(\d+)">\s*<FeatureVersion[^>]*>\s*(?:<Comment\s*\/>\s*|<Comment>[^<]*<\/Comment>\s*)?<VersionDetail DetailTypeID="\d+">([^<]+)<\/VersionDetail>/g,
  )) {
    const currency = currencyOfType.get(match[1]!)
    if (currency) pairs.add(`${currency} ${match[2]!.trim()}`)
  }
  return pairs
}

/** UN consolidated: DATAID and the names (name parts joined, aliases, original script). */
export function rawUnRecords(xml: string): RawRecord[] {
  const records: RawRecord[] = []
  for (const tag of ['INDIVIDUAL', 'ENTITY']) {
    for (const { block } of blocks(xml, new RegExp(`<${tag}>()`, 'g'), `</${tag}>`)) {
      const id = /<DATAID>(\d+)<\/DATAID>/.exec(block)?.[1] ?? ''
      const text = (name: string) =>
        decodeXml(new RegExp(`<${name}>([^<]*)</${name}>`).exec(block)?.[1] ?? '').trim()
      const names = [
        ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'].map(text).filter(Boolean).join(' '),
        ...[...block.matchAll(/<ALIAS_NAME>([^<]+)<\/ALIAS_NAME>/g)].map((match) =>
          decodeXml(match[1]!).trim(),
        ),
        ...[...block.matchAll(/<NAME_ORIGINAL_SCRIPT>([^<]+)<\/NAME_ORIGINAL_SCRIPT>/g)].map((match) =>
          decodeXml(match[1]!).trim(),
        ),
      ].filter(Boolean)
      records.push({ id, names, block })
    }
  }
  return records
}

/** Legacy EU: ENTITY Id and every WHOLENAME. */
export function rawEuLegacyEntities(xml: string): RawRecord[] {
  return blocks(xml, /<ENTITY Id="(\d+)"/g, '</ENTITY>').map(({ id, block }) => ({
    id,
    names: [...block.matchAll(/<WHOLENAME>([^<]+)<\/WHOLENAME>/g)].map((match) =>
      decodeXml(match[1]!).trim(),
    ),
    block,
  }))
}

/** `count` items spread evenly over the array (deterministic, covers start to end). */
export function spreadSample<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items]
  const step = items.length / count
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]!)
}
