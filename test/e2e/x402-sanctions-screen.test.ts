import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import { wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch'
import { createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import { PRICES } from '../../core/payments/pricing.ts'
import type { Service } from '../../server/compose.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'
import { createTestService, listen } from '../support/service.ts'

const PRICE = PRICES.sanctions_screen.x402.fresh

/** Issue: both official clients pay for a real operation and the operator gains exactly the price. */
describe('official x402 clients paying POST /v1/sanctions/screen', () => {
  let setup: LocalPaymentSetup
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let url: string
  const body = JSON.stringify({ name: 'ORIENTAL OIL KISH' })

  beforeAll(async () => {
    setup = await startLocalPaymentSetup()
    service = await createTestService('pglite', {
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      // Configured but unreadable: their first read fails, so the screen answers partial (charged)
      // instead of a 503 for lists that are not configured.
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/no-such-file.xml'),
      SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
      ...localX402Env(setup),
    })
    await service.runtime.deps.sanctionsLists?.idle()
    server = await listen(service)
    url = `${server.baseUrl}/v1/sanctions/screen`
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await service?.close()
    await setup?.stop()
  })

  it('@x402/fetch (v2) pays 0.005 USDC and gets the screen result', async () => {
    const before = await setup.usdc.balanceOf(setup.payTo)
    // The payment headers the client sends: it echoes the challenge's Bazaar discovery data.
    const sent: string[] = []
    const recording: typeof fetch = (input, init) => {
      const request = new Request(input, init)
      const payment = request.headers.get('payment-signature')
      if (payment) sent.push(payment)
      return fetch(request)
    }
    const response = await wrapFetchV2(recording, officialV2Client(setup, setup.payerKeys[0]!))(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ possible_match: true, lists_checked: expect.any(Array) })
    expect(decodePaymentResponseHeader(response.headers.get('payment-response')!)).toMatchObject({
      success: true,
    })
    expect((await setup.usdc.balanceOf(setup.payTo)) - before).toBe(PRICE)
    expect(sent).toHaveLength(1)
    console.info(`PAYMENT-SIGNATURE header of the paid retry: ${sent[0]!.length} bytes`)
    const payload = decodePaymentSignatureHeader(sent[0]!)
    expect(payload.extensions?.bazaar).toMatchObject({ info: { input: { type: 'http', method: 'POST' } } })
    expect(payload.resource).toMatchObject({ serviceName: expect.any(String), tags: expect.any(Array) })
  })

  it('x402-fetch (v1) pays 0.005 USDC and gets the screen result', async () => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(setup.payerKeys[1]!),
      chain: setup.chain.chain,
      transport: http(setup.chain.rpcUrl),
    })
    const before = await setup.usdc.balanceOf(setup.payTo)
    const response = await wrapFetchV1(
      fetch,
      wallet as never,
      1_000_000n,
    )(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ possible_match: true })
    expect((await setup.usdc.balanceOf(setup.payTo)) - before).toBe(PRICE)
  })
})
