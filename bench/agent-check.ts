/**
 * Agent-check benchmark: POST /v1/agent/check through the HTTP app (key auth, balance debit) for a
 * registered, funded agent wallet with agent_id and domain, so every part runs: the OFAC address
 * screen (real SDN list copy), balances, identity and reputation read from the ERC-8004 reference
 * registries on a local chain (anvil), and the domain probes (RDAP, DNS, TLS fakes on 127.0.0.1).
 * Prints JSON: median and p95 wall time per check and the JSON-RPC round trips (HTTP requests to
 * the RPC) per check. Run: npm run bench:agent-check
 */

import { performance } from 'node:perf_hooks'
import { usd } from '../core/money.ts'
import type { AgentChainReader } from '../core/sources/agent-chain.ts'
import { createDatabase } from '../core/store/database.ts'
import { createService } from '../server/compose.ts'
import { startAgentWorld } from '../test/support/chain/agent-fixtures.ts'
import { startCompanyFakes } from '../test/support/company-fakes.ts'
import { sanctionsDataPath } from '../test/support/sanctions/shared-data.ts'
import { testConfig } from '../test/support/test-config.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 50)
const WARMUP = 3

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
const round = (n: number) => Math.round(n * 10) / 10

const keepAlive = setInterval(() => {}, 1000)
const world = await startAgentWorld()
const fakes = await startCompanyFakes({ delayMs: 0, timeoutMs: 5000 })
const service = await createService(
  testConfig({
    PORT: '0',
    ...world.env(),
    SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/csv/2024-05-03/sdn.csv'),
    SANCTIONS_STARTUP_REFRESH_DELAY_MS: '0',
  }),
  { database: await createDatabase(), log: () => {} },
)
await service.runtime.deps.sanctionsLists?.idle()
service.runtime.deps.companySources = fakes.sources
const reader = service.runtime.deps.agentChain as AgentChainReader
const { apiKey } = await service.runtime.keys.create({
  email: 'bench@example.com',
  tier: 'pro',
  balance: usd('1000'),
})
const body = JSON.stringify({
  wallet: world.clean.wallet,
  agent_id: world.clean.agentId.toString(),
  domain: 'example.com',
})

const check = async () => {
  const trips = reader.roundTrips()
  const started = performance.now()
  const response = await service.app.request('/v1/agent/check', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body,
  })
  const result = (await response.json()) as { verdict: string; ran: string[] }
  const elapsed = performance.now() - started
  if (response.status !== 200 || result.ran.length !== 6 || result.verdict !== 'proceed')
    throw new Error(`check failed: ${response.status} ${JSON.stringify(result)}`)
  return { elapsed, roundTrips: reader.roundTrips() - trips }
}

try {
  for (let i = 0; i < WARMUP; i++) await check()
  const times: number[] = []
  const trips = new Set<number>()
  for (let i = 0; i < RUNS; i++) {
    const { elapsed, roundTrips } = await check()
    times.push(elapsed)
    trips.add(roundTrips)
  }
  times.sort((a, b) => a - b)
  console.log(
    JSON.stringify(
      {
        benchmark: 'agent_check with agent_id and domain: all six parts, local chain (anvil), fakes at 0 ms',
        target: 'parts read in parallel; at most 4 RPC round trips',
        node: process.version,
        runs: RUNS,
        median_ms: round(percentile(times, 50)),
        p95_ms: round(percentile(times, 95)),
        min_ms: round(times[0] as number),
        max_ms: round(times[times.length - 1] as number),
        rpc_round_trips_per_check: [...trips].sort(),
      },
      null,
      2,
    ),
  )
} finally {
  await service.close()
  await fakes.close()
  await world.stop()
  clearInterval(keepAlive)
}
