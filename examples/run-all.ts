/**
 * Runs every example (examples/<story>/main.ts) as its own process; fails if any fails.
 * Each example asserts what it shows (CONVENTIONS 8).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const stories = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(path.join(here, entry.name, 'main.ts')))
  .map((entry) => entry.name)
  .sort()

// Node 22.18+ and 24 run TypeScript themselves (faster to start); older Nodes load tsx.
const typescript = (process.features as { typescript?: string | false }).typescript
const loader = typescript ? [] : ['--import', 'tsx']

let passed = 0
let failed = 0
for (const story of stories) {
  console.log(`example ${story}`)
  const result = spawnSync(process.execPath, [...loader, path.join(here, story, 'main.ts')], {
    stdio: 'inherit',
    timeout: 180_000,
  })
  if (result.status === 0) passed++
  else {
    failed++
    console.error(`example ${story} failed (exit ${result.status ?? result.signal})`)
  }
}
console.log(`examples: ${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
