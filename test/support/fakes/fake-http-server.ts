import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { type FakeBehaviour, type FakeCommonOptions, NORMAL, sleep } from './fake-behaviour.ts'
import { loopbackListener } from './loopback-listener.ts'

export interface FakeRequest {
  method: string
  /** Path without the query string. */
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
  body: string
}

export interface FakeResponse {
  status: number
  headers?: Record<string, string>
  /** A string is sent as is; anything else as JSON. */
  body?: unknown
}

export type FakeHandler = (
  request: FakeRequest,
  behaviour: FakeBehaviour,
) => FakeResponse | Promise<FakeResponse>

export interface FakeHttpServer {
  readonly name: string
  /** `http://127.0.0.1:<port>` without trailing slash. */
  readonly url: string
  readonly port: number
  /** Every request received, in order. */
  readonly requests: FakeRequest[]
  readonly stats: { inFlight: number; maxInFlight: number }
  /** Changes how the fake answers from the next request on. */
  behave(behaviour: Partial<FakeBehaviour>): void
  /** Stops listening: new connections are refused (ECONNREFUSED) until `resume()`. */
  refuse(): Promise<void>
  resume(): Promise<void>
  close(): Promise<void>
}

/**
 * A local HTTP server on 127.0.0.1 (port 0) with the behaviour switches every upstream fake
 * needs; the upstream-specific fakes supply the handler that speaks the real format.
 */
export async function startFakeHttpServer(
  name: string,
  handler: FakeHandler,
  options: FakeCommonOptions = {},
): Promise<FakeHttpServer> {
  let behaviour: FakeBehaviour = { ...NORMAL, ...options.behaviour }
  const requests: FakeRequest[] = []
  const stats = { inFlight: 0, maxInFlight: 0 }
  const sockets = new Set<Socket>()

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? '/', 'http://fake')
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    }
    requests.push(request)
    const current = behaviour
    stats.inFlight++
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight)
    options.gauge?.enter(name)
    let finished = false
    const finish = () => {
      if (finished) return
      finished = true
      stats.inFlight--
      options.gauge?.leave(name)
    }
    res.on('close', finish)
    if (current.mode === 'hang') return
    await sleep(current.delayMs)
    await options.hold?.()
    if (current.mode === 'reset') {
      req.socket.destroy()
      return
    }
    try {
      const response = await handler(request, current)
      const isText = typeof response.body === 'string'
      const payload =
        response.body === undefined ? '' : isText ? (response.body as string) : JSON.stringify(response.body)
      res.writeHead(response.status, {
        'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json',
        // no keep-alive: a refused or reset fake must not be hidden behind a pooled socket
        connection: 'close',
        ...response.headers,
      })
      res.end(payload)
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`fake ${name} handler failed: ${String(error)}`)
    } finally {
      finish()
    }
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  const listener = loopbackListener(server, sockets)
  const listen = listener.listen
  const stop = async () => {
    await listener.stop()
    // let clients see their pooled sockets close, so the next request really meets a refusal
    await sleep(25)
  }

  await listen(0)
  const port = (server.address() as AddressInfo).port

  return {
    name,
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    stats,
    behave(next) {
      behaviour = { ...behaviour, ...next }
      if (next.mode === 'normal' && next.error === undefined) behaviour.error = undefined
    },
    refuse: stop,
    async resume() {
      if (!server.listening) await listen(port)
    },
    close: stop,
  }
}
