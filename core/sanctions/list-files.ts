import { createReadStream } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { bz2Decompress, detectListFormat, isBz2 } from './list-source.ts'
import { LIST_KEY_OF_FORMAT, LIST_KEYS, type ListFormat, type ListKey } from './types.ts'

/** A list file found in a folder, with what its first bytes say it is. */
export interface FoundListFile {
  path: string
  format: ListFormat
  list_key: ListKey
  /** The newest YYYY-MM-DD in its path (folders are often named by publication date), else its mtime day. */
  date: string
  bytes: number
}

/** Preference when a folder holds one list in several formats: the richest format first. */
const FORMAT_RANK: Readonly<Record<ListFormat, number>> = {
  ofac_sdn_advanced_xml: 0,
  ofac_sdn_csv: 1,
  un_xml: 0,
  eu_fsf_xml: 0,
  eu_legacy_xml: 1,
}

const CANDIDATE = /\.(xml|csv)(\.bz2)?$/i

async function firstBytes(file: string): Promise<Uint8Array | null> {
  const stream = createReadStream(file, { start: 0, end: 1 << 20 })
  try {
    const raw: Buffer[] = []
    for await (const chunk of stream) raw.push(chunk as Buffer)
    const head = Buffer.concat(raw)
    if (!isBz2(head)) return head
    const whole = createReadStream(file, { highWaterMark: 1 << 16 })
    try {
      for await (const chunk of bz2Decompress(whole)) return chunk
    } finally {
      whole.destroy()
    }
    return null
  } finally {
    stream.destroy()
  }
}

/** Which list a file holds (by content, not name); null for anything that is not a list this service reads. */
export async function identifyListFile(file: string): Promise<Omit<FoundListFile, 'date' | 'bytes'> | null> {
  try {
    const head = await firstBytes(file)
    if (!head || head.length === 0) return null
    const format = detectListFormat(head)
    return { path: file, format, list_key: LIST_KEY_OF_FORMAT[format] }
  } catch {
    return null
  }
}

async function walk(dir: string, out: string[]): Promise<string[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    // Follow symbolic links (a folder of links to the shared copies).
    const kind = entry.isSymbolicLink() ? await stat(full).catch(() => null) : entry
    if (kind?.isDirectory()) await walk(full, out)
    else if (kind?.isFile() && CANDIDATE.test(entry.name)) out.push(full)
  }
  return out
}

/**
 * The list files under `folder` (recursively), identified by content, and per list the one to
 * load: the richest format, then the newest date in its path. `npm run lists:import` loads these.
 */
export async function findListFiles(
  folder: string,
): Promise<{ found: FoundListFile[]; chosen: Partial<Record<ListKey, FoundListFile>> }> {
  const found: FoundListFile[] = []
  for (const file of await walk(folder, [])) {
    const identified = await identifyListFile(file)
    if (!identified) continue
    const info = await stat(file)
    const dates = file.match(/\d{4}-\d{2}-\d{2}/g) ?? []
    const date = dates.sort().at(-1) ?? info.mtime.toISOString().slice(0, 10)
    found.push({ ...identified, date, bytes: info.size })
  }
  const chosen: Partial<Record<ListKey, FoundListFile>> = {}
  for (const key of LIST_KEYS) {
    const candidates = found
      .filter((file) => file.list_key === key)
      .sort((a, b) => FORMAT_RANK[a.format] - FORMAT_RANK[b.format] || b.date.localeCompare(a.date))
    if (candidates[0]) chosen[key] = candidates[0]
  }
  return { found, chosen }
}
