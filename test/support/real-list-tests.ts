import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Which test files read the real OFAC, EU and UN list copies, and whether this machine has them.
 * The copies (several dated versions of each list, so list changes are real diffs) are not part
 * of the repository: CI has them at ../shared/data/sanctions (SHARED_DIR overrides ../shared).
 * Without them, `npm test` runs every other test and names what it did not run; with CI=true a
 * missing copy fails those tests instead (vitest.config.ts).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** The folder of the real list copies (see its README), whether or not it exists. */
export function sanctionsDataDir(): string {
  return path.join(process.env.SHARED_DIR ?? path.resolve(ROOT, '../shared'), 'data', 'sanctions')
}

export function realListsPresent(): boolean {
  return existsSync(sanctionsDataDir())
}

/** The module every reader of the real copies goes through. */
const READER = path.join(ROOT, 'test/support/sanctions/shared-data.ts')
const TEST_FOLDERS = ['core', 'http', 'tools', 'server', 'client', 'test']

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
}

/** Relative imports of a file (static and dynamic), resolved to absolute paths. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8')
  const specifiers = [...source.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((match) => match[1]!)
  return specifiers.map((specifier) => path.resolve(path.dirname(file), specifier))
}

/**
 * Test files (relative to the repository root) that import the reader, directly or through the
 * test support modules. An import scan rather than a hand-kept list, so a new test on the real
 * lists is covered without anyone remembering to add it.
 */
export function realListTestFiles(): string[] {
  const support = tsFiles(path.join(ROOT, 'test/support')).filter((file) => !file.endsWith('.test.ts'))
  const readers = new Set([READER])
  for (let grew = true; grew; ) {
    grew = false
    for (const file of support) {
      if (!readers.has(file) && importsOf(file).some((target) => readers.has(target))) {
        readers.add(file)
        grew = true
      }
    }
  }
  return TEST_FOLDERS.flatMap((folder) => tsFiles(path.join(ROOT, folder)))
    .filter((file) => file.endsWith('.test.ts') && importsOf(file).some((target) => readers.has(target)))
    .map((file) => path.relative(ROOT, file))
    .sort()
}
