/**
 * Start-and-smoke: `npm start` as a user runs it (PGlite in a fresh DATA_DIR, nothing else), on
 * the Node that runs this script. CI runs it on the maintenance LTS line (Node 22) while the whole
 * suite runs on the active one (Node 24). It waits for the "listening" line, reads /health,
 * creates a sandbox key, makes one mock entity check over REST, then stops the service with
 * SIGTERM and expects a clean exit.
 *
 *   npm run smoke
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { OFFLINE_LISTS } from '../support/test-config.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-smoke-'))
const child = spawn(process.execPath, ['server/main.ts'], {
  cwd: root,
  // The lists are not fetched (no internet in CI); everything else is the default configuration.
  env: { ...process.env, ...OFFLINE_LISTS, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
  stdio: ['ignore', 'pipe', 'inherit'],
})

try {
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the service did not say "listening" within 180 s')),
      60_000,
    )
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      process.stdout.write(`service: ${line}\n`)
      try {
        const entry = JSON.parse(line) as { message?: string; port?: number }
        if (entry.message === 'listening' && entry.port) {
          clearTimeout(timer)
          resolve(entry.port)
        }
      } catch {
        // not a JSON log line (start-up progress)
      }
    })
  })
  const base = `http://127.0.0.1:${port}`

  const health = await fetch(`${base}/health`)
  assert.ok(health.status === 200 || health.status === 503, `/health answered ${health.status}`)
  assert.equal(typeof ((await health.json()) as { status?: unknown }).status, 'string')

  const created = await fetch(`${base}/v1/keys/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'smoke@example.com', tier: 'sandbox' }),
  })
  assert.equal(created.status, 201)
  const { api_key: apiKey } = (await created.json()) as { api_key: string }

  const check = await fetch(`${base}/v1/entity/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ entity_name: 'Koninklijke Philips N.V.', country: 'NL', kvk_number: '17001910' }),
  })
  assert.equal(check.status, 200)
  assert.equal(((await check.json()) as { mock?: unknown }).mock, true)

  child.kill('SIGTERM')
  const [code] = (await once(child, 'exit')) as [number | null]
  assert.equal(code, 0, `the service exited with ${code} after SIGTERM`)
  console.log(
    `smoke on Node ${process.versions.node}: started, /health, sandbox key, mock entity check, clean stop`,
  )
} catch (error) {
  child.kill('SIGKILL')
  console.error(
    `smoke on Node ${process.versions.node} failed: ${error instanceof Error ? error.message : error}`,
  )
  process.exitCode = 1
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
