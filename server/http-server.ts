import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'

/**
 * How long an idle keep-alive connection stays open (ms). Longer than the idle timeout of the
 * usual clients and load balancers (60 s at most), so the server never closes a connection just
 * as a client sends its next request on it: a client does not resend a POST that met a closed
 * socket (x402 payments are POSTs), so that race would fail a paid call. Node's default is 5 s.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000

/** Time allowed for a request's headers (ms): above the keep-alive timeout, as Node requires. */
export const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000

export interface ServeOptions {
  port: number
  hostname: string
  /** Listen queue length (pending connections not yet accepted). */
  backlog?: number
}

/**
 * Serves a fetch handler over HTTP/1.1 with the service's connection timeouts (see
 * KEEP_ALIVE_TIMEOUT_MS); resolves once it listens. The one way the service is put on a socket,
 * so every entry point (and the test servers) keeps connections the same way.
 */
export async function serveHttp(
  fetch: (request: Request) => Response | Promise<Response>,
  options: ServeOptions,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createAdaptorServer({ fetch }) as Server
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  server.headersTimeout = HEADERS_TIMEOUT_MS
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port: options.port, host: options.hostname, backlog: options.backlog }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done())
        server.closeIdleConnections()
      }),
  }
}
