import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { tsEntry } from './ts-entry.ts'

/**
 * The paid test server (test/support/paid-server-main.ts) as a child process, so fault tests can
 * kill it with SIGKILL. Resolves once it listens, with the URL of its priced test operation.
 */
export async function startPaidServerChild(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, tsEntry('test/support/paid-server-main.ts'), {
    // Rate limits off unless the test sets RATE_LIMITS: fault tests make 1,000 calls with one key.
    env: { ...process.env, RATE_LIMITS: 'off', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer]
  const { port } = JSON.parse(chunk.toString()) as { port: number }
  return { child, url: `http://127.0.0.1:${port}/v1/test/paid-echo` }
}

/** Polls `probe` every 100 ms until it returns a value; throws naming `what` after the timeout. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}
