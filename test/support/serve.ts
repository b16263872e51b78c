import type { Service } from '../../server/compose.ts'
import { serveHttp } from '../../server/http-server.ts'

/** The operator key test services are configured with. */
export const TEST_ADMIN_KEY = 'svc_admin_test_0123456789abcdefghij'

/** Serves a service's app on 127.0.0.1 at a free port, as production does (tests and benchmarks; no vitest needed). */
export async function listen(service: Service): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const { port, close } = await serveHttp(service.app.fetch, { port: 0, hostname: '127.0.0.1' })
  return { baseUrl: `http://127.0.0.1:${port}`, close }
}
