import type { Server, Socket } from 'node:net'

/**
 * Test-only: listen on 127.0.0.1 and stop again, for the fakes that can refuse connections and
 * resume. `stop` destroys the open `sockets` (the fake decides which ones it tracks) and closes
 * the server; it is safe to call when the server is not listening.
 */
export function loopbackListener(server: Server, sockets: ReadonlySet<Socket>) {
  return {
    listen: (port: number) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject)
          resolve()
        })
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        if (!server.listening) return resolve()
        server.close(() => resolve())
      }),
  }
}
