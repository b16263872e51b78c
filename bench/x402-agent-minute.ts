/**
 * An agent paying every call with the official `@x402/fetch` client (one 402 challenge, then the
 * paid call, settled on a local anvil chain with transferWithAuthorization), from one address,
 * against a service with rate limits on at their defaults except the payer's per-minute limit:
 * `npm run bench:x402-agent-minute`   (CALLS=300, CONCURRENCY=4 calls in flight by default;
 * RATE_LIMIT_X402_PER_MINUTE = CALLS)
 *
 * Checks and prints: every call answered 200 within the minute, the pay-to address received
 * exactly CALLS x the price (each call settled once), and the next call is refused with the
 * payer's own 429 (its detail names the x402 payer limit, never the challenge limit).
 * Exits 1 when any check fails. Too long for the test suite (about a minute on a shared
 * machine): test/e2e/x402-agent-limits.test.ts runs the same path with 70 calls.
 */
import { wrapFetchWithPayment } from '@x402/fetch'
import { PRICES } from '../core/payments/pricing.ts'
import { createDatabase } from '../core/store/database.ts'
import { createService } from '../server/compose.ts'
import { officialV2Client } from '../test/support/chain/official-payer.ts'
import { localX402Env, startLocalPaymentSetup } from '../test/support/chain/payment-fixtures.ts'
import { sanctionsDataPath, UN_FILES } from '../test/support/sanctions/shared-data.ts'
import { listen, TEST_ADMIN_KEY } from '../test/support/serve.ts'
import { testConfig } from '../test/support/test-config.ts'

const CALLS = Number(process.env.CALLS ?? 300)
/** Calls the agent has in flight at once (one address, one client; each payment has its own nonce). */
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4)
const PRICE = PRICES.sanctions_screen.x402.fresh

/**
 * Real time moved to one second into the next minute, so the per-minute windows cannot turn over
 * during the run (ahead, not behind: a payment signed from real time is already valid here).
 */
const shiftMs = 60_000 - (Date.now() % 60_000) + 1_000
const clock = { now: () => new Date(Date.now() + shiftMs) }

const setup = await startLocalPaymentSetup()
const service = await createService(
  testConfig({
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    PORT: '0',
    RATE_LIMITS: 'on',
    RATE_LIMIT_X402_PER_MINUTE: CALLS,
    SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
    SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/no-such-file.xml'),
    SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
    SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    ...localX402Env(setup),
  }),
  { database: await createDatabase(), log: () => {}, clock },
)
await service.runtime.deps.sanctionsLists?.idle()
const server = await listen(service)
try {
  const pay = wrapFetchWithPayment(fetch, officialV2Client(setup, setup.payerKeys[0]!))
  const call = (i: number) =>
    pay(`${server.baseUrl}/v1/sanctions/screen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Agent counterparty ${i}` }),
    })
  const before = await setup.usdc.balanceOf(setup.payTo)
  const started = performance.now()
  const statuses = new Map<number, number>()
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CALLS) {
        const response = await call(next++)
        await response.arrayBuffer()
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      }
    }),
  )
  const elapsedS = (performance.now() - started) / 1000
  const received = (await setup.usdc.balanceOf(setup.payTo)) - before
  const refused = await call(CALLS)
  const problem = (await refused.json()) as { detail?: string }
  const receivedAfter = (await setup.usdc.balanceOf(setup.payTo)) - before
  const withinAMinute = elapsedS < 59
  const checks = {
    every_call_200: statuses.get(200) === CALLS,
    within_a_minute: withinAMinute,
    settled_once_each: received === PRICE * BigInt(CALLS),
    // Only meaningful inside the minute the calls were counted in.
    next_is_payer_429:
      withinAMinute &&
      receivedAfter === received &&
      refused.status === 429 &&
      (problem.detail ?? '').includes(`${CALLS} calls per minute for an x402 payer`) &&
      !(problem.detail ?? '').includes('challenge'),
  }
  console.log(
    JSON.stringify({
      command: 'npm run bench:x402-agent-minute',
      calls: CALLS,
      concurrency: CONCURRENCY,
      statuses: Object.fromEntries(statuses),
      elapsed_s: Number(elapsedS.toFixed(1)),
      calls_per_s: Number((CALLS / elapsedS).toFixed(1)),
      received_micros: received.toString(),
      expected_micros: (PRICE * BigInt(CALLS)).toString(),
      next_call: { status: refused.status, detail: problem.detail },
      checks,
    }),
  )
  if (!Object.values(checks).every(Boolean)) process.exitCode = 1
} finally {
  await server.close()
  await service.close()
  await setup.stop()
}
