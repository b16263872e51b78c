import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import type { Service } from '../../server/compose.ts'

/** The operator key test services are configured with. */
export const TEST_ADMIN_KEY = 'svc_admin_test_0123456789abcdefghij'

/** Serves a service's app on 127.0.0.1 at a free port (tests and benchmarks; no vitest needed). */
export async function listen(service: Service): Promise<{ baseUrl: string; close(): Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve(
      { fetch: service.app.fetch, port: 0, hostname: '127.0.0.1' },
      (info: AddressInfo) => {
        resolve({
          baseUrl: `http://127.0.0.1:${info.port}`,
          close: () => new Promise<void>((done) => server.close(() => done())),
        })
      },
    )
  })
}
