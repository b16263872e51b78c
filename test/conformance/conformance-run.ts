import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createDatabase } from '../../core/store/database.ts'
import { createService } from '../../server/compose.ts'
import { listen } from '../support/serve.ts'
import { testConfig } from '../support/test-config.ts'

/** The suite's command line (the pinned devDependency; bump it on purpose: a new version may add scenarios). */
const CONFORMANCE_CLI = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
)
/** The scenarios that do not apply to a stateless tools-only server, each with its reason. */
export const BASELINE = fileURLToPath(new URL('./conformance-baseline.yml', import.meta.url))

/**
 * The suite's summary says "N passed, M failed" per scenario and in total, which log readers may
 * take for this project's test totals: those counts are renamed checks ok / not ok.
 */
function relabel(line: string): string {
  return line.replace(/(\d+) passed, (\d+) failed/g, '$1 checks ok, $2 not ok')
}

function runSuite(url: string, print: (line: string) => void): Promise<number> {
  const args = [CONFORMANCE_CLI, 'server', '--url', url, '--expected-failures', BASELINE]
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let pending = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) print(relabel(line))
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => print(chunk.trimEnd()))
    child.on('close', (code) => {
      if (pending) print(relabel(pending))
      resolve(code ?? 1)
    })
    child.on('error', () => resolve(1))
  })
}

/**
 * Runs the MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios, active
 * suite) against the service's `/mcp` on an in-memory PGlite, on this process's Node (22 or
 * newer). The scenarios that do not apply to a stateless tools-only server are the suite's
 * expected failures, each with its reason, in conformance-baseline.yml; any other failure, or a
 * listed scenario that passes, makes the exit code non-zero. Every line the suite prints goes to
 * `print`.
 */
export async function runConformance(print: (line: string) => void): Promise<number> {
  const service = await createService(testConfig({ PORT: '0' }), {
    database: await createDatabase(),
    log: () => {},
  })
  const server = await listen(service)
  try {
    return await runSuite(`${server.baseUrl}/mcp`, print)
  } finally {
    await server.close()
    await service.close()
  }
}
