import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseEuXml } from '../../core/sanctions/eu-parser.ts'
import { parseOfacAdvancedXml } from '../../core/sanctions/ofac-advanced-parser.ts'
import { buildSanctionsIndex, type IndexedList } from '../../core/sanctions/sanctions-index.ts'
import type { SanctionsEntry } from '../../core/sanctions/types.ts'
import { parseUnXml } from '../../core/sanctions/un-parser.ts'
import {
  EU_LEGACY_FILE,
  OFAC_ADVANCED,
  readBz2,
  readShared,
  sanctionsDataPath,
  UN_FILES,
} from '../../test/support/sanctions/shared-data.ts'

/**
 * The three full lists the matching benchmarks run on (OFAC SDN Advanced 2025-11-19, legacy EU,
 * UN 2026-02-27), parsed by the service's own parsers. The parsed entries are cached in the OS
 * temp folder, keyed by the files' sizes and times and the parsers' source, so repeated
 * benchmark runs skip the 120 MB OFAC parse.
 */
export async function loadListEntries(): Promise<{ entries: SanctionsEntry[]; lists: IndexedList[] }> {
  const files = [OFAC_ADVANCED['2025-11-19'], EU_LEGACY_FILE, UN_FILES['2026-02-27']]
  const parserDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../core/sanctions')
  const hash = createHash('sha256')
  for (const file of files) {
    const stat = statSync(sanctionsDataPath(file))
    hash.update(`${file}:${stat.size}:${stat.mtimeMs}`)
  }
  for (const parser of ['ofac-advanced-parser.ts', 'eu-parser.ts', 'un-parser.ts', 'types.ts']) {
    hash.update(readFileSync(path.join(parserDir, parser)))
  }
  const cacheDir = path.join(tmpdir(), 'sanctions-bench-cache')
  const cached = path.join(cacheDir, `entries-${hash.digest('hex').slice(0, 16)}.json`)
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8'))
  const ofac = await parseOfacAdvancedXml(await readBz2(files[0]!))
  const eu = await parseEuXml(readShared(files[1]!))
  const un = await parseUnXml(readShared(files[2]!))
  const index = buildSanctionsIndex([ofac, eu, un])
  const result = { entries: [...index.entries], lists: [...index.lists] }
  mkdirSync(cacheDir, { recursive: true })
  writeFileSync(cached, JSON.stringify(result))
  return result
}
