import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sql } from 'drizzle-orm'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../core/store/database.ts'
import type { Service } from '../../server/compose.ts'
import type { Config } from '../../server/config.ts'
import { signPaymentHeader } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { paidRegistry } from '../support/paid-operations.ts'
import { createTestService, listen } from '../support/service.ts'

/**
 * The facilitator is down (connection refused) and nothing else can settle, so
 * the settlement of a verified, funded payment cannot even be started. The default policy
 * withholds the answer (503, nothing charged); `serve` answers and leaves it to the retry worker.
 */
describe('x402 settlement that cannot be started', () => {
  let setup: LocalPaymentSetup
  let refusedUrl: string
  const services: { service: Service; server: { baseUrl: string; close(): Promise<void> } }[] = []

  beforeAll(async () => {
    setup = await startLocalPaymentSetup({ fundedAmount: 10_000_000n })
    // A port that was just free: connections to it are refused.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    refusedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
    await new Promise((resolve) => closed.close(resolve))
  }, 120_000)

  afterAll(async () => {
    for (const { service, server } of services) {
      await server.close()
      await service.close()
    }
    await setup?.stop()
  })

  async function start(policy?: Config['X402_UNCONFIRMED_SETTLEMENT']) {
    const service = await createTestService(
      'pglite',
      {
        // Verification and the funds check read the local chain; only the facilitator settles,
        // and it refuses connections.
        ...localX402Env(setup, { settleOnChain: false }),
        BASE_SEPOLIA_RPC_URL: setup.chain.rpcUrl,
        X402_FACILITATOR_URL: refusedUrl,
        ...(policy ? { X402_UNCONFIRMED_SETTLEMENT: policy } : {}),
      },
      { operations: paidRegistry },
    )
    const server = await listen(service)
    services.push({ service, server })
    return { service, url: `${server.baseUrl}/v1/test/paid-echo` }
  }

  const pay = async (url: string, key: `0x${string}`) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'PAYMENT-SIGNATURE': await signPaymentHeader(setup, url, key),
      },
      body: JSON.stringify({ text: 'paid' }),
    })

  const ledger = async (service: Service) =>
    rowsOf<{ status: string; last_error: string | null }>(
      await service.database.db.execute(sql`select status, last_error from settlements`),
    )

  it('by default answers 503 with Retry-After and errorCode, withholds the answer and charges nothing', async () => {
    const { service, url } = await start()
    const payer = setup.payerKeys[0]!
    const before = await setup.usdc.balanceOf(privateKeyToAccount(payer).address)
    const response = await pay(url, payer)
    const body = (await response.json()) as Record<string, unknown>
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('5')
    expect(body).toMatchObject({ status: 503, errorCode: 'facilitator_unavailable' })
    expect(body).not.toHaveProperty('echo')
    expect(await ledger(service)).toEqual([
      { status: 'FAILED', last_error: expect.stringMatching(/could not be started.*nothing charged/) },
    ])
    expect(await setup.usdc.balanceOf(privateKeyToAccount(payer).address)).toBe(before)
  })

  it('with X402_UNCONFIRMED_SETTLEMENT=serve answers, marked pending, and keeps the row for the worker', async () => {
    const { service, url } = await start('serve')
    const response = await pay(url, setup.payerKeys[1]!)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ echo: 'paid' })
    expect(response.headers.get('x-payment-fallback')).toBe('true')
    expect(await ledger(service)).toEqual([{ status: 'PENDING', last_error: 'facilitator_unavailable' }])
  })
})
