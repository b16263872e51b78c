/**
 * Story: an autonomous agent is about to pay another agent. Before it pays, it buys an agent
 * check of the counterparty's wallet with x402 (the official @x402/fetch client, USDC on a local
 * chain posing as Base Sepolia) and acts on the verdict: it pays a clean, registered ERC-8004
 * agent and refuses a wallet on the OFAC list. Everything runs locally: an EVM node (anvil) with
 * TestUSDC and the ERC-8004 reference registries, the service in-process on an in-memory
 * database, OFAC's `sdn.csv` from the fictitious example lists (examples/lists/ofac), whose
 * remarks list the wallet to refuse as a `Digital Currency Address - ETH`. Exits non-zero if
 * anything it shows does not hold.
 */

import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, createWalletClient, http, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { PRICES } from '../../core/payments/pricing.ts'
import { createDatabase } from '../../core/store/database.ts'
import { createService } from '../../server/compose.ts'
import { startAgentWorld } from '../../test/support/chain/agent-fixtures.ts'
import { officialV2Client } from '../../test/support/chain/official-payer.ts'
import { testConfig } from '../../test/support/test-config.ts'

const world = await startAgentWorld()
const service = await createService(
  testConfig({
    PORT: '0',
    ...world.env(),
    SANCTIONS_OFAC_SOURCE: path.join(
      path.dirname(fileURLToPath(import.meta.url)),
      '..',
      'lists',
      'ofac',
      'sdn.csv',
    ),
    SANCTIONS_STARTUP_REFRESH_DELAY_MS: '0',
  }),
  { database: await createDatabase(), log: () => {} },
)
await service.runtime.deps.sanctionsLists?.idle()
const server = serve({ fetch: service.app.fetch, port: 0, hostname: '127.0.0.1' })
await new Promise((resolve) => server.once('listening', resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const agentKey = world.x402PayerKeys[0]!
const agent = privateKeyToAccount(agentKey)
const wallet = createWalletClient({
  account: agent,
  chain: world.setup.chain.chain,
  transport: http(world.setup.chain.rpcUrl),
})
const usdc = world.setup.usdc
const payWithX402 = wrapFetchWithPayment(fetch, officialV2Client(world.setup, agentKey))

/** Buys an agent check (0.005 USDC over x402), then pays `amount` only when the verdict is proceed. */
async function checkThenPay(counterparty: { wallet: Address; agent_id?: string }, amount: bigint) {
  const response = await payWithX402(`${base}/v1/agent/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(counterparty),
  })
  assert.equal(response.status, 200, `agent check answered ${response.status}`)
  const check = (await response.json()) as { verdict: string; verdict_reasons: string[] }
  console.log(`agent check of ${counterparty.wallet}: ${check.verdict} (${check.verdict_reasons[0]})`)
  if (check.verdict !== 'proceed') return { check, paid: false }
  const hash = await wallet.writeContract({
    address: usdc.address,
    abi: parseAbi(['function transfer(address to, uint256 value) returns (bool)']),
    functionName: 'transfer',
    args: [counterparty.wallet, amount],
  })
  const receipt = await world.setup.chain.publicClient.waitForTransactionReceipt({ hash })
  assert.equal(receipt.status, 'success')
  return { check, paid: true }
}

try {
  const operatorBefore = await usdc.balanceOf(world.setup.payTo)

  // 1. A registered agent whose agent wallet is funded and clean: the agent pays it 1 USDC.
  const cleanBefore = await usdc.balanceOf(world.clean.wallet)
  const clean = await checkThenPay(
    { wallet: world.clean.wallet, agent_id: world.clean.agentId.toString() },
    1_000_000n,
  )
  assert.equal(clean.check.verdict, 'proceed')
  assert.equal(clean.paid, true)
  assert.equal((await usdc.balanceOf(world.clean.wallet)) - cleanBefore, 1_000_000n)

  // 2. A wallet on the OFAC SDN list (the fictitious EXAMPLE DIGITAL ASSETS LTD.): blocked,
  //    nothing is paid.
  const listed = '0x5eED00000000000000000000000000000000baD1' as Address
  const blocked = await checkThenPay({ wallet: listed }, 1_000_000n)
  assert.equal(blocked.check.verdict, 'block')
  assert.match(blocked.check.verdict_reasons[0]!, /^sanctions_hit/)
  assert.equal(blocked.paid, false)
  assert.equal(await usdc.balanceOf(listed), 0n)

  // 3. The operator earned exactly two x402 agent-check payments.
  assert.equal((await usdc.balanceOf(world.setup.payTo)) - operatorBefore, 2n * PRICES.agent_check.x402.fresh)
  console.log(
    'agent-pays-and-checks: paid the clean agent, refused the listed wallet; 2 x 0.005 USDC for the checks',
  )
} finally {
  server.close()
  await service.close()
  await world.stop()
}
