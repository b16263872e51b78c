import { wrapFetchWithPayment } from '@x402/fetch'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICES } from '../../core/payments/pricing.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import type { LocalPaymentSetup } from '../support/chain/payment-fixtures.ts'
import { startX402ScreenService, type X402ScreenService } from '../support/x402-screen-service.ts'

const PRICE = PRICES.sanctions_screen.x402.fresh
/** Above the default challenge limit (60 unpaid challenges a minute per address). */
const PAYER_PER_MINUTE = 70

/**
 * An agent paying every call with the official client meets one 402 per call from one address:
 * with rate limits on at their defaults (but the payer's per-minute limit at 70), the challenge
 * limit never refuses it; the first refusal is the payer's own per-minute limit.
 */
/**
 * Real time, moved forward to one second into the next minute when the test begins, so the
 * per-minute windows cannot turn over during its calls (well under a minute) and the test never
 * waits for a fresh minute. Ahead, not behind: a payment the client signs from real time must
 * already be valid on this clock (its window opens at signing and lasts the challenge's
 * maxTimeoutSeconds, longer than the shift).
 */
let shiftMs = 0
const clock = { now: () => new Date(Date.now() + shiftMs) }

describe('an x402 agent is limited by its own payer limit, never by the challenge limit', {
  timeout: 120_000,
}, () => {
  let setup: LocalPaymentSetup
  let server: { baseUrl: string; close(): Promise<void> }

  let running: X402ScreenService | undefined

  beforeAll(async () => {
    running = await startX402ScreenService(
      { RATE_LIMITS: 'on', RATE_LIMIT_X402_PER_MINUTE: PAYER_PER_MINUTE },
      { clock },
    )
    ;({ setup, server } = running)
  }, 120_000)

  afterAll(async () => {
    await running?.close()
  })

  it(`${PAYER_PER_MINUTE} paid calls in a minute are answered and settled once each; the next is the payer's 429`, async () => {
    shiftMs = 60_000 - (Date.now() % 60_000) + 1_000
    const pay = wrapFetchWithPayment(fetch, officialV2Client(setup, setup.payerKeys[0]!))
    const before = await setup.usdc.balanceOf(setup.payTo)
    const call = (i: number) =>
      pay(`${server.baseUrl}/v1/sanctions/screen`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Agent counterparty ${i}` }),
      })
    const statuses: number[] = []
    for (let i = 0; i < PAYER_PER_MINUTE; i++) {
      const response = await call(i)
      await response.arrayBuffer()
      statuses.push(response.status)
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([])
    expect((await setup.usdc.balanceOf(setup.payTo)) - before).toBe(PRICE * BigInt(PAYER_PER_MINUTE))

    const refused = await call(PAYER_PER_MINUTE)
    expect(refused.status).toBe(429)
    const problem = (await refused.json()) as { detail: string; limit_window: string }
    expect(problem).toMatchObject({ limit_window: 'minute' })
    expect(problem.detail).toContain(`${PAYER_PER_MINUTE} calls per minute for an x402 payer`)
    expect(problem.detail).not.toContain('challenge')
    expect((await setup.usdc.balanceOf(setup.payTo)) - before).toBe(PRICE * BigInt(PAYER_PER_MINUTE))
  })
})
