import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SKIP = new Set(['node_modules', '.git', 'data', 'test-artifacts', 'coverage'])

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) sourceFiles(full, out)
    else if (name.endsWith('.ts')) out.push(path.relative(ROOT, full))
  }
  return out
}

/** Where a config may be read from the environment: the entry points a person starts. */
const ENTRY_POINTS = new Set([
  'server/config.ts',
  'server/main.ts',
  'server/cli.ts',
  'server/mcp-stdio.ts',
  'server/lists-import.ts',
])

describe('tests, benchmarks and examples never read the official sanctions lists', () => {
  const files = sourceFiles(ROOT)

  it('build every config through testConfig (SANCTIONS_DEFAULT_SOURCE=off), or call loadConfig with OFFLINE_LISTS', () => {
    const offenders = files.filter((file) => {
      if (ENTRY_POINTS.has(file) || file === 'test/support/test-config.ts') return false
      const text = readFileSync(path.join(ROOT, file), 'utf8')
      // A test of loadConfig's own messages may call it, with the offline lists spread in.
      const calls = text.match(/ConfigSchema\.parse\([^)]*|loadConfig\([^)]*/g) ?? []
      return calls.some((call) => !call.includes('...OFFLINE_LISTS'))
    })
    expect(offenders).toEqual([])
  })

  it('spawn the service entry points with OFFLINE_LISTS in their environment', () => {
    const spawners = files.filter((file) => {
      // The bundler names the entry points to build them; it starts none (ts-entry.ts's callers do).
      if (ENTRY_POINTS.has(file) || file === 'test/support/entry-bundles.ts') return false
      const text = readFileSync(path.join(ROOT, file), 'utf8')
      return /['"`]server\/(main|mcp-stdio)\.ts['"`]/.test(text)
    })
    expect(spawners.length).toBeGreaterThan(0)
    for (const file of spawners) {
      expect(readFileSync(path.join(ROOT, file), 'utf8'), file).toContain('OFFLINE_LISTS')
    }
  })
})
