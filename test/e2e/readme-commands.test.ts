import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

/**
 * Runs every fenced `sh` block of the README, in order, as a newcomer would paste them into one
 * terminal: on a fresh data folder, on a free port (`localhost:3000` becomes it), with the
 * variables a block exports kept for the next ones. A block written ```sh no-test is not run
 * (installing, the long test command). A line ending in `&` (starting the service) is started in
 * the background here and waited for until the service says it is listening; it is stopped at the
 * end with SIGTERM. Each block's output is checked by the entry of CHECKS whose `command` it
 * contains, and a block without one fails, so a new README command cannot go unchecked. A block
 * written ```sh example is one `npm run <script>` of an example story (examples/<story>/main.ts),
 * which the examples runner of `npm test` runs and checks: here only that the script is that story.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..')

interface Block {
  info: string
  code: string
}

/** The fenced blocks of a Markdown text whose language is `sh`, indentation of list items removed. */
function shBlocks(markdown: string): Block[] {
  const blocks: Block[] = []
  for (const match of markdown.matchAll(/^( *)```sh([^\n]*)\n([\s\S]*?)^ *```$/gm)) {
    const indent = match[1]!.length
    const code = match[3]!
      .split('\n')
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n')
      .trim()
    blocks.push({ info: match[2]!.trim(), code })
  }
  return blocks
}

/** JSON values printed one after another (jq output), parsed. */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = []
  let depth = 0
  let start = -1
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') {
        inString = false
        if (depth === 0) {
          values.push(JSON.parse(text.slice(start, i + 1)))
          start = -1
        }
      }
      continue
    }
    if (char === '"') {
      inString = true
      if (depth === 0) start = i
    } else if (char === '{' || char === '[') {
      if (depth === 0) start = i
      depth++
    } else if (char === '}' || char === ']') {
      depth--
      if (depth === 0) {
        values.push(JSON.parse(text.slice(start, i + 1)))
        start = -1
      }
    }
  }
  return values
}

const CHECKS: { command: string; check(output: string): void }[] = [
  {
    command: 'npm run lists:import -- examples/lists',
    check: (output) => {
      expect(output).toContain('OFAC SDN: updated (4 entries)')
      expect(output).toContain('EU Consolidated Financial Sanctions List: updated (4 entries')
      expect(output).toContain('UN Security Council Consolidated List: updated (2 entries')
    },
  },
  {
    command: 'export ADMIN_API_KEY=',
    check: (output) => expect(output).toBe(''),
  },
  {
    command: '"tier":"sandbox"',
    check: (output) => {
      const [status, mock] = jsonValues(output)
      expect(['ok', 'degraded']).toContain(status)
      expect(mock).toMatchObject({ mock: true, mock_note: expect.stringContaining('mock data') })
      expect((mock as { trust_score: unknown }).trust_score).toEqual(expect.any(Number))
    },
  },
  {
    command: '/v1/admin/keys',
    check: (output) => expect(jsonValues(output)).toEqual([{ tier: 'pro', balance_usdc: 5 }]),
  },
  {
    command: '"name":"Ivan Petrovich Testov"',
    check: (output) => {
      const [screen] = jsonValues(output) as [
        { result: string; matches: { list: string; matched_name: string }[] },
      ]
      expect(screen.result).toBe('possible_match')
      expect(screen.matches).toEqual(
        expect.arrayContaining([
          { list: 'OFAC SDN', matched_name: 'TESTOV, Ivan Petrovich', programmes: ['RUSSIA-EO14024'] },
          expect.objectContaining({ list: 'EU Consolidated Financial Sanctions List' }),
        ]),
      )
    },
  },
  {
    command: "jq '{status, detail, charged}'",
    check: (output) =>
      expect(jsonValues(output)).toEqual([
        {
          status: 503,
          detail: expect.stringContaining('the KVK (Dutch business register) API is not configured'),
          charged: false,
        },
      ]),
  },
  {
    command: '"name": "Alexandr Lukashenka", "match": "fuzzy"',
    // The example lists are fictitious: the command answers and finds nobody, and since the example
    // EU and UN files are months old (stale), the answer is incomplete, never clear.
    check: (output) =>
      expect(jsonValues(output)[0]).toMatchObject({
        result: 'incomplete',
        matches: [],
        coverage: {
          status: 'partial',
          stale: true,
          lists_not_checked: [],
          lists_checked: [
            { list_key: 'ofac_sdn', stale: false },
            { list_key: 'eu', stale: true },
            { list_key: 'un', stale: true },
          ],
        },
      }),
  },
]

async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('README: every sh command, in order, on a fresh data folder', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'readme-'))
  const state = path.join(work, 'state.sh')
  let service: ChildProcess | undefined

  afterAll(async () => {
    if (service?.pid && service.exitCode === null) {
      process.kill(-service.pid, 'SIGTERM')
      await once(service, 'exit')
    }
    rmSync(work, { recursive: true, force: true })
  })

  it('runs and checks each block', { timeout: 300_000 }, async () => {
    const port = await freePort()
    const base = `127.0.0.1:${port}`
    writeFileSync(state, '')
    const env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(work, 'data'),
      NODE_ENV: 'development',
    }
    const blocks = shBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8'))
    const marked = (block: Block, marker: string) => block.info.split(/\s+/).includes(marker)
    // An example story's block: its script runs that story, which npm test's examples runner runs.
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>
      }
    ).scripts
    for (const block of blocks.filter((candidate) => marked(candidate, 'example'))) {
      const script = /^npm run ([\w:-]+)$/.exec(block.code.trim())?.[1]
      expect(script, `an example block is one npm run: ${block.code}`).toBeDefined()
      const story = /examples\/([\w-]+)\/main\.ts/.exec(scripts[script!] ?? '')?.[1]
      expect(story, `npm run ${script} runs an example story`).toBeDefined()
      expect(existsSync(path.join(ROOT, 'examples', story!, 'main.ts'))).toBe(true)
    }
    const run = blocks.filter((block) => !marked(block, 'no-test') && !marked(block, 'example'))
    expect(run.length).toBe(CHECKS.length)
    const prelude = `set -eo pipefail; set -a; . '${state}'; set +a`

    for (const block of run) {
      const code = block.code.replaceAll('localhost:3000', base)
      const entry = CHECKS.find((candidate) => code.includes(candidate.command))
      expect(entry, `README block without a check:\n${code}`).toBeDefined()
      const lines = code.split('\n')
      const background = lines.filter((line) => /&\s*$/.test(line))
      const foreground = lines.filter((line) => !/&\s*$/.test(line)).join('\n')
      const result = spawnSync('bash', ['-c', `${prelude}\n${foreground}\nexport -p > '${state}'`], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 240_000,
      })
      expect(result.status, `${code}\n${result.stdout}\n${result.stderr}`).toBe(0)
      entry!.check(result.stdout)
      for (const line of background) {
        const log = path.join(work, 'service.log')
        const out = openSync(log, 'w')
        service = spawn('bash', ['-c', `${prelude}\n${line.replace(/&\s*$/, '')}`], {
          cwd: ROOT,
          env,
          detached: true,
          stdio: ['ignore', out, out],
        })
        await waitForListening(log, service)
      }
    }
    // Stopping it as the README says (the signal reaches the service): it logs and exits.
    expect(service).toBeDefined()
    process.kill(-service!.pid!, 'SIGTERM')
    await once(service!, 'exit')
    const log = readFileSync(path.join(work, 'service.log'), 'utf8')
    expect(log).toContain('"message":"stopped"')
  })
})

/** Waits until the service's log says it listens (or fails when it exits first). */
async function waitForListening(log: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited: ${readFileSync(log, 'utf8')}`)
    if (readFileSync(log, 'utf8').includes('"message":"listening"')) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the service did not listen within 120 s: ${readFileSync(log, 'utf8')}`)
}
