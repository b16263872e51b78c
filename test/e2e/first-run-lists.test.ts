import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { findListFiles } from '../../core/sanctions/index.ts'
import { createDatabase } from '../../core/store/database.ts'
import { ConfigSchema } from '../../server/config.ts'
import { OFFICIAL_SANCTIONS_SOURCES, sanctionsSources } from '../../server/sanctions.ts'
import { type ListServer, startListServer } from '../support/sanctions/list-server.ts'
import {
  EU_LEGACY_FILE,
  OFAC_ADVANCED,
  sanctionsDataDir,
  sanctionsDataPath,
  UN_FILES,
} from '../support/sanctions/shared-data.ts'
import { createTestService } from '../support/service.ts'
import { OFFLINE_LISTS } from '../support/test-config.ts'
import { tsEntry } from '../support/ts-entry.ts'

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

type Health = {
  status: string
  sanctions_lists: { list_key: string; status: string; reason?: string; entries?: number }[]
}

describe('first run: the official lists by default, progress, degraded health, lists:import', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {})
  })

  it('reads the official OFAC, EU and UN URLs with no configuration; off only when asked', () => {
    const plain = ConfigSchema.safeParse({})
    expect(plain.success).toBe(true)
    expect(sanctionsSources(plain.data!)).toEqual(OFFICIAL_SANCTIONS_SOURCES)
    expect(sanctionsSources(ConfigSchema.safeParse(OFFLINE_LISTS).data!)).toEqual({})
    const oneOff = ConfigSchema.safeParse({ SANCTIONS_UN_SOURCE: 'off' }).data!
    expect(Object.keys(sanctionsSources(oneOff))).toEqual(['ofac_sdn', 'eu'])
  })

  it('npm start: serves at once, prints download and parse progress, and /health names each list that failed (200)', async () => {
    const lists: ListServer = await startListServer({
      '/un.xml': await readFile(sanctionsDataPath(UN_FILES['2026-02-27'])),
      '/eu.xml': await readFile(sanctionsDataPath(EU_LEGACY_FILE)),
    })
    cleanup.push(() => lists.close())
    const dataDir = await mkdtemp(path.join(tmpdir(), 'first-run-'))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    const child: ChildProcess = spawn(process.execPath, tsEntry('server/main.ts'), {
      env: {
        ...process.env,
        ...OFFLINE_LISTS,
        // Any free port, read from the "listening" line (a port picked here may be taken by then).
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        SANCTIONS_UN_SOURCE: `${lists.url}/un.xml`,
        SANCTIONS_EU_SOURCE: `${lists.url}/eu.xml`,
        // No network: nothing listens on that port.
        SANCTIONS_OFAC_SOURCE: `http://127.0.0.1:${await closedPort()}/SDN_ADVANCED.XML`,
        SANCTIONS_STARTUP_REFRESH_DELAY_MS: '500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    cleanup.push(async () => {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    })
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const started = Date.now()
    let port: string | undefined
    while (!port && child.exitCode === null && Date.now() - started < 150_000) {
      port = output.match(/"message":"listening","port":(\d+)/)?.[1]
      if (!port) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(port, `no "listening" line:\n${output}`).toBeDefined()
    const health = async (): Promise<{ code: number; body: Health } | undefined> => {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/health`)
        return { code: response.status, body: (await response.json()) as Health }
      } catch {
        return undefined
      }
    }
    let first = await health()
    while (!first && Date.now() - started < 150_000) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      first = await health()
    }
    // Served at once, whatever the downloads do: the first /health answer comes before any list
    // is loaded (an ordering of observable events, not a time bound).
    const loadedBeforeFirstAnswer = output.includes('"message":"sanctions list updated"')
    expect(first?.code, output).toBe(200)
    expect(loadedBeforeFirstAnswer).toBe(false)
    let settled: Health | undefined
    while (Date.now() - started < 200_000) {
      const now = await health()
      const byKey = Object.fromEntries((now?.body.sanctions_lists ?? []).map((list) => [list.list_key, list]))
      // The shared copies were published in 2016 (EU) and 2026-02-27 (UN): loaded, and stale.
      if (
        byKey.un?.status === 'stale' &&
        byKey.eu?.status === 'stale' &&
        byKey.ofac_sdn?.status === 'unavailable'
      ) {
        expect(now?.code).toBe(200)
        settled = now?.body
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(settled?.status).toBe('degraded')
    const ofac = settled?.sanctions_lists.find((list) => list.list_key === 'ofac_sdn')
    expect(ofac?.reason).toContain('ECONNREFUSED')
    expect(ofac?.reason).toContain('npm run lists:import')
    expect(settled?.sanctions_lists.find((list) => list.list_key === 'un')?.entries).toBeGreaterThan(900)
    expect(settled?.sanctions_lists.find((list) => list.list_key === 'eu')).toMatchObject({
      publication_date: '2016-02-11',
      max_age_days: 30,
      reason: expect.stringContaining('more than the 30-day threshold'),
    })
    expect(output).toContain('"message":"sanctions list downloading"')
    expect(output).toContain('"message":"sanctions list parsing"')
    expect(output).toContain('"message":"sanctions list updated"')
  }, 240_000)

  it('finds the list files of a folder by content and picks the richest, newest file per list', async () => {
    const { chosen } = await findListFiles(sanctionsDataDir())
    expect(chosen.ofac_sdn?.path).toBe(sanctionsDataPath(OFAC_ADVANCED['2025-11-19']))
    expect(chosen.un?.path).toBe(sanctionsDataPath(UN_FILES['2026-02-27']))
    expect(chosen.eu?.path).toBe(sanctionsDataPath(EU_LEGACY_FILE))
  })

  it('npm run lists:import -- <folder> loads the files it finds into the database a service then serves', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'lists-'))
    const dataDir = await mkdtemp(path.join(tmpdir(), 'lists-db-'))
    cleanup.push(() => rm(folder, { recursive: true, force: true }))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    await mkdir(path.join(folder, 'un', '2026-02-27'), { recursive: true })
    await symlink(sanctionsDataPath(UN_FILES['2026-02-27']), path.join(folder, 'un', '2026-02-27', 'un.xml'))
    await writeFile(path.join(folder, 'notes.xml'), '<notes/>')
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      tsEntry('server/lists-import.ts', folder),
      { env: { ...process.env, ...OFFLINE_LISTS, DATA_DIR: dataDir }, maxBuffer: 8 * 1024 * 1024 },
    )
    expect(stdout).toContain(
      'UN Security Council Consolidated List: updated (1003 entries, published 2026-02-27)',
    )
    // The progress bar (cli-progress writes to stderr).
    expect(stderr).toMatch(/un +\|█+\| updated/)
    const service = await createTestService('pglite', {}, { database: await createDatabase({ dataDir }) })
    cleanup.push(() => service.close())
    const body = (await (await service.app.request('/health')).json()) as Health
    // Loaded, and reported stale: published 2026-02-27, past the UN list's 30-day threshold.
    expect(body.sanctions_lists.find((list) => list.list_key === 'un')).toMatchObject({
      status: 'stale',
      entries: 1003,
      publication_date: '2026-02-27',
      max_age_days: 30,
      reason: expect.stringContaining('more than the 30-day threshold'),
    })
  }, 60_000)
})
