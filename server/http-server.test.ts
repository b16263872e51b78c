import { once } from 'node:events'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, serveHttp } from './http-server.ts'

/** One HTTP/1.1 request on a raw socket that stays open; resolves with the response head. */
async function requestKeptOpen(port: number) {
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n')
  let head = ''
  while (!head.includes('\r\n\r\n')) head += ((await once(socket, 'data')) as [Buffer])[0].toString()
  return { socket, head }
}

describe('serveHttp', () => {
  it('keeps idle connections longer than clients and load balancers do, and tells clients so', async () => {
    const served = await serveHttp(() => new Response('ok'), { port: 0, hostname: '127.0.0.1' })
    try {
      expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000)
      expect(HEADERS_TIMEOUT_MS).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS)
      expect(served.server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS)
      expect(served.server.headersTimeout).toBe(HEADERS_TIMEOUT_MS)
      // Clients (undici, browsers) reuse a connection only within the advertised timeout.
      const { socket, head } = await requestKeptOpen(served.port)
      expect(head).toMatch(/^HTTP\/1\.1 200/)
      expect(head).toMatch(/\r\nKeep-Alive: timeout=65\r\n/i)
      socket.destroy()
    } finally {
      await served.close()
    }
  })

  it('closes idle kept-alive connections when it closes, instead of waiting out their timeout', async () => {
    const served = await serveHttp(() => new Response('ok'), { port: 0, hostname: '127.0.0.1' })
    const { socket } = await requestKeptOpen(served.port)
    const closed = once(socket, 'close')
    await served.close()
    await closed
    expect(socket.destroyed).toBe(true)
  })
})
