import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LOCK_FILE } from '../../core/store/data-dir-lock.ts'
import { testPgliteDataDir, testPostgresUrl } from '../support/database.ts'
import { sanctionsDataDir } from '../support/sanctions/shared-data.ts'
import { TEST_ADMIN_KEY } from '../support/serve.ts'
import { OFFLINE_LISTS } from '../support/test-config.ts'
import { tsEntry } from '../support/ts-entry.ts'

/**
 * One owner per PGlite data folder, with real processes: a second server, the operator CLI, a
 * list import and the stdio MCP server on a running service's DATA_DIR each refuse at once and
 * exit non-zero, while the service keeps answering /health; a lock left by kill -9 is recovered
 * on the next start; PostgreSQL stays shared.
 */

const children: ChildProcess[] = []
const cleanups: (() => void)[] = []
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  for (const cleanup of cleanups) cleanup()
})

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

interface Run {
  child: ChildProcess
  /** stdout and stderr as they came. */
  output: () => string
  stdout: () => string
  exited: Promise<{ code: number | null; ms: number }>
}

function run(
  script: string,
  args: string[],
  env: Record<string, string>,
  stdin: 'ignore' | 'pipe' = 'ignore',
): Run {
  const started = performance.now()
  const child = spawn(process.execPath, tsEntry(script, ...args), {
    env: { ...process.env, ...OFFLINE_LISTS, LOG_LEVEL: 'warn', ADMIN_API_KEY: TEST_ADMIN_KEY, ...env },
    stdio: [stdin, 'pipe', 'pipe'],
  })
  children.push(child)
  let output = ''
  let stdout = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = once(child, 'exit').then(([code]) => ({
    code: code as number | null,
    ms: Math.round(performance.now() - started),
  }))
  return { child, output: () => output, stdout: () => stdout, exited }
}

async function health(baseUrl: string): Promise<number | string> {
  try {
    const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(5_000) })
    await response.arrayBuffer()
    return response.status
  } catch (error) {
    return (error as Error).name
  }
}

/** Starts `npm start` (server/main.ts) and waits until /health answers. */
async function startService(env: Record<string, string>): Promise<{ run: Run; baseUrl: string }> {
  const port = await freePort()
  const service = run('server/main.ts', [], { ...env, PORT: String(port), HOST: '127.0.0.1' })
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 90_000
  while ((await health(baseUrl)) !== 200) {
    if (service.child.exitCode !== null) throw new Error(`service exited: ${service.output()}`)
    if (Date.now() > deadline) throw new Error(`service not up: ${service.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return { run: service, baseUrl }
}

async function createKey(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
    body: JSON.stringify({ email: 'owner@example.com', tier: 'pro', balance_usd: '5' }),
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { api_key: string }).api_key
}

const keyUsage = async (baseUrl: string, apiKey: string) => {
  const response = await fetch(`${baseUrl}/v1/keys/usage`, { headers: { 'x-api-key': apiKey } })
  await response.arrayBuffer()
  return response.status
}

describe('one owner per PGlite data folder', { timeout: 300_000 }, () => {
  it('a second server, the operator CLI, lists:import and stdio MCP on a running service refuse at once; /health answers throughout', async () => {
    const { dataDir, remove } = await testPgliteDataDir('svc-owner-')
    cleanups.push(remove)
    const env = { DATA_DIR: dataDir }
    const service = await startService(env)
    const servicePid = service.run.child.pid!
    const apiKey = await createKey(service.baseUrl)
    const lockBefore = readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')
    expect(JSON.parse(lockBefore)).toMatchObject({ pid: servicePid })
    const namesBefore = readdirSync(dataDir).sort()

    // /health polled without pause while the others try.
    const healthAnswers: (number | string)[] = []
    let polling = true
    const poller = (async () => {
      while (polling) healthAnswers.push(await health(service.baseUrl))
    })()

    const attempts = {
      'npm start': run('server/main.ts', [], { ...env, PORT: String(await freePort()), HOST: '127.0.0.1' }),
      'npm run cli': run(
        'server/cli.ts',
        ['create-key', '--email', 'second@example.com', '--tier', 'pro', '--balance-usd', '5'],
        env,
      ),
      'npm run lists:import': run('server/lists-import.ts', [sanctionsDataDir()], env),
      'npm run mcp': run('server/mcp-stdio.ts', [], env, 'pipe'),
    }
    const timings: Record<string, number> = {}
    for (const [name, attempt] of Object.entries(attempts)) {
      const { code, ms } = await attempt.exited
      timings[name] = ms
      expect(code, `${name}: ${attempt.output()}`).toBe(1)
      expect(attempt.output(), name).toContain(
        `DATA_DIR ${dataDir} is in use by process ${servicePid} (${path.relative(process.cwd(), tsEntry('server/main.ts')[0]!)}, since `,
      )
      expect(attempt.output(), name).toContain(
        'stop it, or use another DATA_DIR, or PostgreSQL (DATABASE_URL) to share one database between processes',
      )
      expect(attempt.output(), name).not.toMatch(/\n\s+at /) // no stack trace
    }
    expect(attempts['npm run cli'].output()).toContain('POST /v1/admin/keys')
    expect(attempts['npm run lists:import'].output()).toContain('POST /v1/admin/sanctions/refresh')
    expect(attempts['npm run mcp'].output()).toContain('/mcp endpoint')
    // Spawn to exit, each a fresh node process (shared machine: figures, not a bound).
    console.log('second opener spawn-to-exit ms', JSON.stringify(timings))

    polling = false
    await poller
    expect(healthAnswers.length).toBeGreaterThan(0)
    expect(healthAnswers.filter((answer) => answer !== 200)).toEqual([])
    // Nothing in the folder changed hands, the service still reads and writes its database.
    expect(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).toBe(lockBefore)
    expect(readdirSync(dataDir).sort()).toEqual(namesBefore)
    expect(existsSync(path.join(dataDir, `${LOCK_FILE}.takeover`))).toBe(false)
    expect(await keyUsage(service.baseUrl, apiKey)).toBe(200)
    expect(await keyUsage(service.baseUrl, await createKey(service.baseUrl))).toBe(200)
    expect(await health(service.baseUrl)).toBe(200)

    // SIGTERM stops it cleanly and frees the folder for the next start.
    service.run.child.kill('SIGTERM')
    expect((await service.run.exited).code).toBe(0)
    expect(existsSync(path.join(dataDir, LOCK_FILE))).toBe(false)
    const next = await startService(env)
    expect(await keyUsage(next.baseUrl, apiKey)).toBe(200)
    next.run.child.kill('SIGTERM')
    expect((await next.run.exited).code).toBe(0)
  })

  it('a lock left by kill -9 is recovered on the next start, with the data intact', async () => {
    const { dataDir, remove } = await testPgliteDataDir('svc-owner-kill-')
    cleanups.push(remove)
    const env = { DATA_DIR: dataDir }
    const first = await startService(env)
    const apiKey = await createKey(first.baseUrl)
    first.run.child.kill('SIGKILL')
    await first.run.exited
    const left = JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')) as { pid: number }
    expect(left.pid).toBe(first.run.child.pid)

    const second = await startService(env)
    expect(JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({
      pid: second.run.child.pid,
    })
    expect(await keyUsage(second.baseUrl, apiKey)).toBe(200)
    // And the recovered lock holds like any other.
    const cli = run('server/cli.ts', ['credit', '--key-id', 'x', '--amount-usd', '1'], env)
    expect((await cli.exited).code).toBe(1)
    expect(cli.output()).toContain(`is in use by process ${second.run.child.pid}`)
    expect(await health(second.baseUrl)).toBe(200)
    second.run.child.kill('SIGTERM')
    expect((await second.run.exited).code).toBe(0)
  })

  it('PostgreSQL is shared: the operator CLI runs beside a service on the same database and DATA_DIR', async () => {
    const { dataDir, remove } = await testPgliteDataDir('svc-owner-pg-')
    cleanups.push(remove)
    const env = { DATABASE_URL: await testPostgresUrl('owner'), DATA_DIR: dataDir }
    const service = await startService(env)
    expect(existsSync(path.join(dataDir, LOCK_FILE))).toBe(false)
    const cli = run(
      'server/cli.ts',
      ['create-key', '--email', 'shared@example.com', '--tier', 'pro', '--balance-usd', '5'],
      env,
    )
    expect((await cli.exited).code, cli.output()).toBe(0)
    const created = JSON.parse(cli.stdout()) as { api_key: string }
    expect(await keyUsage(service.baseUrl, created.api_key)).toBe(200)
    service.run.child.kill('SIGTERM')
    expect((await service.run.exited).code).toBe(0)
  })
})
