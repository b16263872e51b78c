import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import { wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch'
import { createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import { PRICES } from '../../core/payments/pricing.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import type { LocalPaymentSetup } from '../support/chain/payment-fixtures.ts'
import { startX402ScreenService, type X402ScreenService } from '../support/x402-screen-service.ts'

const PRICE = PRICES.sanctions_screen.x402.fresh

/** Issue: both official clients pay for a real operation and the operator gains exactly the price. */
describe('official x402 clients paying POST /v1/sanctions/screen', () => {
  let setup: LocalPaymentSetup
  let server: { baseUrl: string; close(): Promise<void> }
  let url: string
  const body = JSON.stringify({ name: 'ORIENTAL OIL KISH' })

  let running: X402ScreenService | undefined

  beforeAll(async () => {
    // Only the UN list is readable: the screen answers partial (charged), see startX402ScreenService.
    running = await startX402ScreenService()
    ;({ setup, server } = running)
    url = `${server.baseUrl}/v1/sanctions/screen`
  }, 120_000)

  afterAll(async () => {
    await running?.close()
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
