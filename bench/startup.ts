/**
 * Start-up benchmark: spawns `node --import tsx server/main.ts` (what `npm start` runs) on a fresh
 * PGlite DATA_DIR and again on the same folder (a restart), timing spawn -> first 200 from /health,
 * and reading resident memory (VmRSS now, VmHWM peak) from /proc. Run: npm run bench:startup
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { OFFLINE_LISTS } from '../test/support/test-config.ts'
import { startCommand } from './support/start-command.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })
}

function memoryKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)
  return match ? Number(match[1]) : Number.NaN
}

async function startOnce(dataDir: string) {
  const port = await freePort()
  const started = performance.now()
  const start = startCommand()
  const child = spawn(process.execPath, [...start.nodeFlags, 'server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      ...start.env,
      ...OFFLINE_LISTS,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const deadline = started + 60_000
  try {
    while (performance.now() < deadline) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`)
        .then((response) => response.status === 200)
        .catch(() => false)
      if (ok) {
        const ms = performance.now() - started
        await new Promise((resolve) => setTimeout(resolve, 500))
        return {
          ms: Math.round(ms),
          rss_mb: Math.round(memoryKb(child.pid ?? 0, 'VmRSS') / 1024),
          peak_rss_mb: Math.round(memoryKb(child.pid ?? 0, 'VmHWM') / 1024),
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    throw new Error('server did not answer /health within 60 s')
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

const runs = Number(process.env.RUNS ?? 3)
const results = []
for (let run = 0; run < runs; run++) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-startup-'))
  try {
    const fresh = await startOnce(dataDir)
    const restart = await startOnce(dataDir)
    results.push({ fresh, restart })
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(
  JSON.stringify({
    runs,
    fresh_start_ms_median: median(results.map((r) => r.fresh.ms)),
    restart_ms_median: median(results.map((r) => r.restart.ms)),
    rss_mb_median: median(results.map((r) => r.restart.rss_mb)),
    peak_rss_mb_max: Math.max(...results.flatMap((r) => [r.fresh.peak_rss_mb, r.restart.peak_rss_mb])),
    results,
  }),
)
