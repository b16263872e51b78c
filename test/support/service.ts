import { createService, type Service, type ServiceOverrides } from '../../server/compose.ts'
import type { Config } from '../../server/config.ts'
import { type DatabaseKind, openTestDatabase } from './database.ts'
import { TEST_ADMIN_KEY } from './serve.ts'
import { testConfig } from './test-config.ts'

export { listen, TEST_ADMIN_KEY } from './serve.ts'

/** A whole service on a fresh database of the given kind, with a quiet logger. */
export async function createTestService(
  kind: DatabaseKind = 'pglite',
  config: Partial<Config> = {},
  overrides: ServiceOverrides = {},
): Promise<Service> {
  const database = overrides.database ?? (await openTestDatabase(kind))
  // Rate limits are off unless a test asks for them: suites make many calls with one key.
  const parsed = testConfig({ ADMIN_API_KEY: TEST_ADMIN_KEY, PORT: '0', RATE_LIMITS: 'off', ...config })
  return createService(parsed, { database, log: () => {}, checkOutputs: true, ...overrides })
}
