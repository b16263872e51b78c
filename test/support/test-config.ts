import { type Config, ConfigSchema } from '../../server/config.ts'

/**
 * What every test and benchmark sets so it never reaches the internet: the sanctions lists default
 * to the official URLs for a plain `npm start`, so tests opt out explicitly.
 * Spread it into the environment of a spawned service process.
 */
export const OFFLINE_LISTS = { SANCTIONS_DEFAULT_SOURCE: 'off' } as const

/**
 * The config of a service started by a test, benchmark or example: OFFLINE_LISTS, then `values`.
 * Every such place builds its config here (test/support/offline-config.test.ts checks it).
 */
export function testConfig(values: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse({ ...OFFLINE_LISTS, ...values })
}
