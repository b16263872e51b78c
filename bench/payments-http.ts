/**
 * Paid-request benchmark: the same priced operation paid three ways through the whole HTTP
 * service (verification, ledger, settlement, usage record):
 *   - key: X-API-Key debited from a prepaid balance (account price);
 *   - x402 + facilitator: a v2 payment verified locally, settled by a facilitator on 127.0.0.1
 *     that answers at once (isolates our own cost);
 *   - x402 + chain: settled on a local EVM (anvil) with transferWithAuthorization.
 * Also times the in-process verification of one payment. Payments are signed before the clock
 * starts. Client and server share this process; the figures compare the three paths.
 * Run: npm run bench:payments-http   (N=200 C=8 by default)
 */
import { createDatabase } from '../core/store/database.ts'
import { createService, type Service } from '../server/compose.ts'
import { fetchChallenge } from '../test/support/chain/official-payer.ts'
import { localX402Env, startLocalPaymentSetup } from '../test/support/chain/payment-fixtures.ts'
import { paidRegistry } from '../test/support/paid-operations.ts'
import { listen, TEST_ADMIN_KEY } from '../test/support/serve.ts'
import { testConfig } from '../test/support/test-config.ts'
import { instantFacilitator, signPayments } from './support/paid-load.ts'

const N = Number(process.env.N ?? 200)
const C = Number(process.env.C ?? 8)

const setup = await startLocalPaymentSetup({ fundedAmount: 1_000_000_000n })
const network = {
  ...localX402Env(setup, { settleOnChain: false }),
  ADMIN_API_KEY: TEST_ADMIN_KEY,
  PORT: '0',
  // Measures the payment paths, not the limiter (bench/rate-limit.ts does).
  RATE_LIMITS: 'off',
}

// A facilitator that settles at once (the path our own code takes, minus the chain).
const facilitator = await instantFacilitator()
const facilitatorUrl = facilitator.url

async function startService(
  extra: Record<string, string>,
): Promise<{ service: Service; base: string; stop(): Promise<void> }> {
  const service = await createService(testConfig({ ...network, ...extra }), {
    database: await createDatabase(),
    operations: paidRegistry,
    log: () => {},
  })
  const server = await listen(service)
  return {
    service,
    base: server.baseUrl,
    stop: async () => {
      await server.close()
      await service.close()
    },
  }
}

async function run(url: string, headerFor: (i: number) => Record<string, string>) {
  const latencies: number[] = []
  let next = 0
  let failures = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) {
        const i = next++
        const t = performance.now()
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headerFor(i) },
          body: JSON.stringify({ text: `call ${i}` }),
        })
        const text = await response.text()
        if (response.status !== 200) {
          failures++
          if (process.env.DEBUG_FAILURES) console.error(response.status, text.slice(0, 300))
        }
        latencies.push(performance.now() - t)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) => Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? 0) * 100) / 100
  return {
    requests: N,
    failures,
    rps: Math.round((N / seconds) * 10) / 10,
    p50_ms: at(0.5),
    p95_ms: at(0.95),
  }
}

const results: Record<string, unknown> = { N, C }

// 1. Key-paid and facilitator-settled x402 on one service.
{
  const { base, stop } = await startService({ X402_FACILITATOR_URL: facilitatorUrl })
  const url = `${base}/v1/test/paid-echo`
  const created = await fetch(`${base}/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
    body: JSON.stringify({ email: 'bench@example.com', tier: 'pro', balance_usd: '100000' }),
  })
  const { api_key: apiKey } = (await created.json()) as { api_key: string }
  await run(url, () => ({ 'x-api-key': apiKey })) // warm-up
  results.key_paid = await run(url, () => ({ 'x-api-key': apiKey }))
  const headers = await signPayments(setup, await fetchChallenge(url), N)
  results.x402_facilitator = await run(url, (i) => ({ 'PAYMENT-SIGNATURE': headers[i]! }))
  await stop()
}

// 2. x402 settled on the local chain.
{
  const { base, stop } = await startService({
    BASE_SEPOLIA_RPC_URL: setup.chain.rpcUrl,
    SETTLEMENT_PRIVATE_KEY: setup.operatorKey,
  })
  const url = `${base}/v1/test/paid-echo`
  const before = await setup.usdc.balanceOf(setup.payTo)
  const headers = await signPayments(setup, await fetchChallenge(url), N)
  results.x402_onchain = await run(url, (i) => ({ 'PAYMENT-SIGNATURE': headers[i]! }))
  results.onchain_received_micros = ((await setup.usdc.balanceOf(setup.payTo)) - before).toString()
  await stop()
}

facilitator.close()
await setup.stop()
console.log(JSON.stringify(results))
