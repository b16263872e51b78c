import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createService, type Service, type ServiceOverrides } from '../../server/compose.ts'
import { type Config, ConfigSchema } from '../../server/config.ts'
import { type DatabaseKind, openTestDatabase } from './database.ts'

export const TEST_ADMIN_KEY = 'svc_admin_test_0123456789abcdefghij'

/** A whole service on a fresh database of the given kind, with a quiet logger. */
export async function createTestService(
  kind: DatabaseKind = 'pglite',
  config: Partial<Config> = {},
  overrides: ServiceOverrides = {},
): Promise<Service> {
  const database = await openTestDatabase(kind)
  const parsed = ConfigSchema.parse({ ADMIN_API_KEY: TEST_ADMIN_KEY, PORT: '0', ...config })
  return createService(parsed, { database, log: () => {}, ...overrides })
}

/** Serves a service's app on 127.0.0.1 at a free port. */
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
