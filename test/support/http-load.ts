/**
 * HTTP load for benchmarks: autocannon with keep-alive in a SECOND process (so the load
 * generator does not share the service's event loop), against one route, with an optional body
 * rotation. `runHttpLoad(spec)` spawns this file with the spec and reads the figures it prints.
 */
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

export interface HttpLoadSpec {
  url: string
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  /** Request bodies sent in turn, one per request. */
  bodies?: string[]
  /** Extra headers sent in turn, one set per request (e.g. a fresh x402 payment each). */
  headerSets?: Record<string, string>[]
  /** Stop after this many requests instead of at the end of `duration` (still bounded by it). */
  amount?: number
  /** Seconds. */
  duration: number
  connections: number
}

export interface HttpLoadFigures {
  requests_per_s: number
  latency_ms: { p50: number; p99: number }
  total: number
  non_2xx: number
  errors: number
  /** Responses by HTTP status (what the non-2xx ones were). */
  statuses?: Record<string, number>
}

/** Runs the load in a child process; rejects when it fails or overruns the duration by a minute. */
export function runHttpLoad(spec: HttpLoadSpec): Promise<HttpLoadFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--load-child'],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    )
    // The spec goes through stdin: thousands of signed payments do not fit in an argument list.
    child.stdin.end(JSON.stringify(spec))
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), (spec.duration + 60) * 1000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      if (code !== 0) return reject(new Error(`load child exited with ${code}`))
      resolve(JSON.parse(output.trim().split('\n').pop()!) as HttpLoadFigures)
    })
  })
}

/** The child: runs autocannon and prints its figures as one JSON line. */
async function loadChild(spec: HttpLoadSpec): Promise<void> {
  const require = createRequire(import.meta.url)
  type Result = {
    requests: { average: number; total: number }
    latency: { p50: number; p99: number }
    non2xx: number
    errors: number
    statusCodeStats?: Record<string, { count: number }>
  }
  const autocannon = require('autocannon') as (
    options: Record<string, unknown>,
    done: (error: unknown, result: Result) => void,
  ) => { stop(): void }
  let next = 0
  const bodies = spec.bodies ?? []
  const headerSets = spec.headerSets ?? []
  const rotates = bodies.length > 0 || headerSets.length > 0
  let instance: { stop(): void } | undefined
  const result = await new Promise<Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        ...(spec.amount ? { amount: spec.amount } : { duration: spec.duration }),
        pipelining: 1,
        requests: [
          {
            method: spec.method,
            headers: spec.headers ?? {},
            ...(rotates
              ? {
                  setupRequest: (request: Record<string, unknown>) => {
                    const i = next++
                    return {
                      ...request,
                      ...(bodies.length ? { body: bodies[i % bodies.length] } : {}),
                      ...(headerSets.length
                        ? {
                            headers: {
                              ...(request.headers as Record<string, string>),
                              ...headerSets[i % headerSets.length],
                            },
                          }
                        : {}),
                    }
                  },
                }
              : {}),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
    // With `amount`, autocannon ignores `duration`: stop it there all the same.
    if (spec.amount) setTimeout(() => instance?.stop(), spec.duration * 1000).unref()
  })
  const figures: HttpLoadFigures = {
    requests_per_s: Number(result.requests.average.toFixed(1)),
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    total: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count]),
    ),
  }
  console.log(JSON.stringify(figures))
}

async function readStdin(): Promise<string> {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  return text
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--load-child') {
  loadChild(JSON.parse(await readStdin()) as HttpLoadSpec).catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
