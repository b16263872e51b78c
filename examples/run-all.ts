/**
 * Runs every example (examples/<story>/main.ts) as its own process; fails if any fails.
 * Each example asserts what it shows (CONVENTIONS 8). Two run at a time (each starts a service and
 * mostly uses one core); an example's output is printed whole once it ends, so stories do not mix.
 * Node runs the TypeScript itself (22.18 or newer, as `engines` requires).
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pLimit from 'p-limit'

const here = path.dirname(fileURLToPath(import.meta.url))
const stories = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(path.join(here, entry.name, 'main.ts')))
  .map((entry) => entry.name)
  .sort()

const TIMEOUT_MS = 180_000

/** Runs one example; resolves with its exit status and everything it printed, in order. */
function run(story: string): Promise<{ status: number | string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(here, story, 'main.ts')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: TIMEOUT_MS,
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.on('close', (code, signal) => resolve({ status: code ?? signal ?? 'unknown', output }))
  })
}

const limit = pLimit(Math.max(1, Math.min(2, availableParallelism())))
const results = await Promise.all(
  stories.map((story) =>
    limit(async () => {
      const result = await run(story)
      process.stdout.write(`example ${story}\n${result.output}`)
      if (result.status !== 0) console.error(`example ${story} failed (exit ${result.status})`)
      return result.status === 0
    }),
  ),
)
const passed = results.filter(Boolean).length
const failed = results.length - passed
console.log(`examples: ${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
