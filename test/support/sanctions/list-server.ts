import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * Test-only: a local HTTP server on 127.0.0.1 that serves sanctions list files by path, counts
 * the downloads per path and can hold responses until released (to overlap two refreshes).
 */
export interface ListServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** Serves `content` at `path` (replaces what was there); null answers 404. */
  set(path: string, content: Uint8Array | null): void
  /** Downloads started per path. */
  count(path: string): number
  /** Holds every response until the returned function is called. */
  hold(): () => void
  /** Resolves once `n` downloads of `path` have started. */
  waitForRequests(path: string, n: number): Promise<void>
  close(): Promise<void>
}

export async function startListServer(files: Record<string, Uint8Array> = {}): Promise<ListServer> {
  const content = new Map<string, Uint8Array>(Object.entries(files))
  const counts = new Map<string, number>()
  const waiters: Array<{ path: string; n: number; resolve: () => void }> = []
  let gate: Promise<void> | undefined
  const sockets = new Set<Socket>()

  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://list').pathname
    counts.set(path, (counts.get(path) ?? 0) + 1)
    for (const waiter of waiters.splice(0)) {
      if ((counts.get(waiter.path) ?? 0) >= waiter.n) waiter.resolve()
      else waiters.push(waiter)
    }
    if (gate) await gate
    const body = content.get(path)
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(body.length) })
    res.end(Buffer.from(body.buffer, body.byteOffset, body.length))
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    set(path, value) {
      if (value) content.set(path, value)
      else content.delete(path)
    },
    count: (path) => counts.get(path) ?? 0,
    hold() {
      let release: () => void = () => {}
      gate = new Promise<void>((resolve) => {
        release = resolve
      })
      return () => {
        gate = undefined
        release()
      }
    },
    waitForRequests(path, n) {
      if ((counts.get(path) ?? 0) >= n) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ path, n, resolve }))
    },
    close() {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
