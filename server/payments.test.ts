import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../core/context.ts'
import { SOLANA_DEVNET } from '../core/payments/networks.ts'
import type { Database } from '../core/store/database.ts'
import { openTestDatabase } from '../test/support/database.ts'
import { startFakeHttpServer } from '../test/support/fakes/fake-http-server.ts'
import { generateTestSolanaKey } from '../test/support/solana/litesvm-chain.ts'
import { testConfig } from '../test/support/test-config.ts'
import { ConfigSchema } from './config.ts'
import { buildPayments } from './payments.ts'

/** Start-up messages name the variable that is missing for the networks actually enabled. */
describe('payments start-up configuration', () => {
  let database: Database
  beforeAll(async () => {
    database = await openTestDatabase('pglite')
  })
  afterAll(async () => {
    await database?.close()
  })

  const build = (env: Record<string, string>, log: (level: string, message: string) => void = () => {}) =>
    buildPayments(testConfig(env), database, 'instance', systemClock, log)

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

  it("fills a Solana requirement's extra.feePayer from the facilitator's GET /supported, or from X402_SOLANA_FEE_PAYER", async () => {
    const FEE_PAYER = '2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4'
    const facilitator = await startFakeHttpServer('facilitator', (request) =>
      request.path === '/supported'
        ? {
            status: 200,
            body: {
              kinds: [
                { x402Version: 2, scheme: 'exact', network: SOLANA_DEVNET, extra: { feePayer: FEE_PAYER } },
              ],
            },
          }
        : { status: 404, body: {} },
    )
    try {
      const env = {
        X402_SOLANA_PAY_TO: 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5',
        X402_NETWORKS: SOLANA_DEVNET,
        X402_FACILITATOR_URL: facilitator.url,
      }
      const fromFacilitator = build(env)
      await fromFacilitator.start()
      fromFacilitator.stop()
      expect(fromFacilitator.x402?.config.networks[0]?.feePayer).toBe(FEE_PAYER)

      const configured = build({
        ...env,
        X402_SOLANA_FEE_PAYER: 'ConfiguredFeePayer1111111111111111111111111',
      })
      expect(configured.x402?.config.networks[0]?.feePayer).toBe(
        'ConfiguredFeePayer1111111111111111111111111',
      )

      const warnings: string[] = []
      await facilitator.close()
      const unknown = build(env, (level, message) => level === 'warn' && warnings.push(message))
      await unknown.start()
      unknown.stop()
      expect(warnings.some((warning) => warning.includes('X402_SOLANA_FEE_PAYER'))).toBe(true)
    } finally {
      await facilitator.close().catch(() => {})
    }
  })

  it('SOLANA_FEE_PAYER_KEY: a bad value stops start-up naming it; without SOLANA_RPC_URL start-up stops; with it the key is extra.feePayer and Solana alone needs no EVM settler', async () => {
    const parsed = ConfigSchema.safeParse({ SOLANA_FEE_PAYER_KEY: 'not-a-key' })
    expect(parsed.success).toBe(false)
    expect(JSON.stringify(parsed.error?.issues)).toContain('SOLANA_FEE_PAYER_KEY')
    expect(JSON.stringify(parsed.error?.issues)).not.toContain('not-a-key')
    const key = await generateTestSolanaKey()
    const solanaOnly = {
      X402_SOLANA_PAY_TO: '2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4',
      X402_NETWORKS: SOLANA_DEVNET,
      SOLANA_FEE_PAYER_KEY: key.base58,
    }
    expect(() => build(solanaOnly)).toThrow(/SOLANA_FEE_PAYER_KEY needs SOLANA_RPC_URL/)
    const payments = build({
      ...solanaOnly,
      X402_SOLANA_FEE_PAYER: 'someoneElse1111111111111111111111',
      SOLANA_RPC_URL: 'http://127.0.0.1:9/',
    })
    expect(payments.x402?.config.networks[0]?.feePayer).toBe(key.address)
    expect(payments.solanaSettlementConfigured).toBe(true)
  })
})
