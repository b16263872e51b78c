import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import postgres from 'postgres'

/**
 * A throwaway PostgreSQL for tests: initdb + pg_ctl in a temp folder, listening on a free
 * loopback port. Run as the `postgres` user when we are root (initdb refuses root).
 */
export interface TempPostgres {
  url: string
  /** Stops the server at once (fault tests: the database goes away under load); data is kept. */
  pause(): void
  /** Starts it again on the same port and data. */
  resume(): void
  stop(): void
}

function findBinDir(): string {
  const fromEnv = process.env.PG_BIN_DIR
  if (fromEnv && existsSync(path.join(fromEnv, 'initdb'))) return fromEnv
  const base = '/usr/lib/postgresql'
  if (existsSync(base)) {
    const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a))
    for (const version of versions) {
      const dir = path.join(base, version, 'bin')
      if (existsSync(path.join(dir, 'initdb'))) return dir
    }
  }
  throw new Error('PostgreSQL binaries not found: install postgresql (Debian) or set PG_BIN_DIR')
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export async function startTempPostgres(): Promise<TempPostgres> {
  const bin = findBinDir()
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-pg-'))
  chmodSync(root, 0o777)
  const dataDir = path.join(root, 'data')
  const asRoot = process.getuid?.() === 0
  const run = (cmd: string, args: string[]) => {
    const full = path.join(bin, cmd)
    const result = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' })
      : spawnSync(full, args, { encoding: 'utf8' })
    if (result.status !== 0) {
      throw new Error(`${cmd} failed: ${result.stderr || result.stdout || result.error?.message}`)
    }
  }
  run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale'])
  const port = await freePort()
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -k ${root} -c fsync=off -c max_connections=200`
  const start = () =>
    run('pg_ctl', ['-D', dataDir, '-o', options, '-l', path.join(root, 'log'), '-w', 'start'])
  start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pause: () => run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']),
    resume: start,
    stop() {
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop'])
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    },
  }
}

/**
 * Creates a fresh database on a running server and returns its URL: empty, or a copy of
 * `template` (a migrated one, see database-templates.ts).
 */
export async function createScratchDatabase(
  serverUrl: string,
  name: string,
  template?: string,
): Promise<string> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const safe = (identifier: string) => identifier.replace(/[^a-z0-9_]/g, '')
  try {
    await admin.unsafe(`create database "${safe(name)}"${template ? ` template "${safe(template)}"` : ''}`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}
