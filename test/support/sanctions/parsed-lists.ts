import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { deserialize, serialize } from 'node:v8'
import { detectListFormat, isBz2, parseList } from '../../../core/sanctions/list-source.ts'
import type { ParsedList } from '../../../core/sanctions/types.ts'
import { readBz2, readShared } from './shared-data.ts'

/**
 * A real list copy parsed once per machine, not once per test file: parsing the 120 MB OFAC SDN
 * Advanced XML takes seconds of CPU, and several test files read the same file. The parsed list
 * is kept in the OS temp folder (V8 serialisation, never committed) under the hash of the file
 * and of the parser code (every production file of core/sanctions/), so a changed parser parses
 * again. Concurrent test files wait for the one that parses.
 */

const SANCTIONS_CODE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../core/sanctions')
const CACHE_DIR = path.join(tmpdir(), 'validation-service-test-lists')
/** A parse that left its lock behind (its process died) is given up after this long. */
const STALE_LOCK_MS = 5 * 60_000

let codeKey: Promise<string> | undefined

/** Hash of the parser code: the production files of core/sanctions/. */
function parserCodeKey(): Promise<string> {
  codeKey ??= (async () => {
    const hash = createHash('sha256')
    const names = (await readdir(SANCTIONS_CODE))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .sort()
    for (const name of names) hash.update(`${name}\n`).update(await readFile(path.join(SANCTIONS_CODE, name)))
    return hash.digest('hex')
  })()
  return codeKey
}

const inProcess = new Map<string, Promise<ParsedList>>()

/**
 * The parsed list of a file under the shared sanctions data (relative path, .bz2 or plain), as
 * the production parser for its detected format returns it.
 */
export function parsedSharedList(relative: string): Promise<ParsedList> {
  let parsed = inProcess.get(relative)
  if (!parsed) {
    parsed = loadOrParse(relative)
    inProcess.set(relative, parsed)
  }
  return parsed
}

async function loadOrParse(relative: string): Promise<ParsedList> {
  const raw = readShared(relative)
  const key = createHash('sha256')
    .update(await parserCodeKey())
    .update(raw)
    .digest('hex')
    .slice(0, 24)
  const file = path.join(CACHE_DIR, `${relative.replace(/[^\w.-]+/g, '_')}-${key}.v8`)
  await mkdir(CACHE_DIR, { recursive: true })
  const lock = `${file}.lock`
  for (;;) {
    const cached = await readFile(file).catch(() => undefined)
    if (cached) return deserialize(cached) as ParsedList
    try {
      await mkdir(lock)
      break
    } catch {
      // Another test file parses it: wait for its result, or take over a lock its process left.
      const since = await stat(lock).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      )
      if (since > STALE_LOCK_MS) await rmdir(lock).catch(() => {})
      else await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  try {
    const bytes = isBz2(raw) ? await readBz2(relative) : raw
    const parsed = await parseList(bytes, detectListFormat(bytes))
    const partial = `${file}.${process.pid}.tmp`
    await writeFile(partial, serialize(parsed))
    await rename(partial, file)
    return parsed
  } finally {
    await rm(lock, { recursive: true, force: true })
  }
}
