import { decodePaymentResponseHeader } from '@x402/core/http'
import { wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type AnswerReceipt, jcsSha256, verifyAnswerReceipt } from '../../core/evidence/answer-receipt.ts'
import type { AuditRow } from '../../core/evidence/audit-store.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import type { TrustedKeys } from '../../core/reports/evidence.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import type { LocalPaymentSetup } from '../support/chain/payment-fixtures.ts'
import { TEST_ADMIN_KEY } from '../support/service.ts'
import { startX402ScreenService, type X402ScreenService } from '../support/x402-screen-service.ts'

/** A paid x402 answer over a real HTTP server: its receipt names the network, payer and transaction. */
describe('the receipt of an x402-paid screen', () => {
  let setup: LocalPaymentSetup
  let server: { baseUrl: string; close(): Promise<void> }

  let running: X402ScreenService | undefined

  beforeAll(async () => {
    running = await startX402ScreenService()
    ;({ setup, server } = running)
  }, 120_000)

  afterAll(async () => {
    await running?.close()
  })

  it('carries the settlement in a receipt that verifies, is stored once and is served by its id', async () => {
    const payer = officialV2Client(setup, setup.payerKeys[0]!)
    const response = await wrapFetchV2(fetch, payer)(`${server.baseUrl}/v1/sanctions/screen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ORIENTAL OIL KISH' }),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as unknown
    const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    const receipt = JSON.parse(
      Buffer.from(response.headers.get('x-receipt')!, 'base64url').toString('utf8'),
    ) as AnswerReceipt
    expect(receipt).toMatchObject({
      operation: 'sanctions_screen',
      response_hash: jcsSha256(body),
      payment: {
        method: 'x402',
        amount_micros: PRICES.sanctions_screen.x402.fresh.toString(),
        network: settlement.network,
        payer: settlement.payer,
        transaction: settlement.transaction,
        settlement: 'settled',
      },
      lists: [expect.objectContaining({ list_key: 'un', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })],
    })
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    const jwks = (await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json()) as TrustedKeys
    expect(
      await verifyAnswerReceipt(receipt as unknown as Record<string, unknown>, jwks, { body }),
    ).toMatchObject({
      ok: true,
    })
    // The payer has no key: the receipt is served by its id alone.
    await vi.waitFor(async () =>
      expect((await fetch(`${server.baseUrl}/v1/receipts/${receipt.receipt_id}`)).status).toBe(200),
    )
    expect(await (await fetch(`${server.baseUrl}/v1/receipts/${receipt.receipt_id}`)).json()).toEqual(receipt)
    // One row in the payer's chain, in the operator's platform-wide view ('finish' then 'close' record it once).
    const trail = (await (
      await fetch(`${server.baseUrl}/v1/audit/trail?operation=sanctions_screen`, {
        headers: { 'x-api-key': TEST_ADMIN_KEY },
      })
    ).json()) as { rows: AuditRow[] }
    const rows = trail.rows.filter((row) => row.receipt_id === receipt.receipt_id)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      chain: `x402:${settlement.network}:${settlement.payer?.toLowerCase()}`,
      kind: 'call',
      paid_with: 'x402',
      subject: 'ORIENTAL OIL KISH',
    })
  })
})
