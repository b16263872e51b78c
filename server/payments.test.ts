import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../core/context.ts'
import { createDatabase, type Database } from '../core/store/database.ts'
import { ConfigSchema } from './config.ts'
import { buildPayments } from './payments.ts'

/** Start-up messages name the variable that is missing for the networks actually enabled. */
describe('payments start-up configuration', () => {
  let database: Database
  beforeAll(async () => {
    database = await createDatabase()
  })
  afterAll(async () => {
    await database?.close()
  })

  const build = (env: Record<string, string>, log: (level: string, message: string) => void = () => {}) =>
    buildPayments(ConfigSchema.parse(env), database, 'instance', systemClock, log)

  it('names BASE_SEPOLIA_RPC_URL when only Base Sepolia is enabled and nothing can settle', () => {
    expect(() =>
      build({
        X402_PAY_TO: '0x2222222222222222222222222222222222222222',
        X402_NETWORKS: 'eip155:84532',
        SETTLEMENT_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
      }),
    ).toThrow(/SETTLEMENT_PRIVATE_KEY with BASE_SEPOLIA_RPC_URL$/)
  })

  it('warns with the missing variable when on-chain settlement lacks the RPC of one enabled network', () => {
    const warnings: string[] = []
    build(
      {
        X402_PAY_TO: '0x2222222222222222222222222222222222222222',
        X402_NETWORKS: 'eip155:8453,eip155:84532',
        SETTLEMENT_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
        BASE_RPC_URL: 'http://127.0.0.1:9/',
      },
      (level, message) => level === 'warn' && warnings.push(message),
    )
    expect(warnings).toEqual([
      'on-chain settlement has no RPC for every enabled network: set BASE_SEPOLIA_RPC_URL',
    ])
  })
})
