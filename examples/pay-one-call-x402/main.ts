/**
 * Story (`npm run demo:x402`): pay one call with x402, end to end, on this machine. It starts a
 * local EVM node (anvil, posing as Base Sepolia) with a TestUSDC contract and a funded payer, the
 * service configured to take USDC there (and to settle on that chain) with the fictitious lists
 * of examples/lists, then the official x402 client (@x402/fetch) pays one sanctions screen: it
 * reads the 402 challenge, signs an EIP-3009 USDC authorisation, and retries with it. Prints the
 * answer and the settlement transaction, checks the USDC moved, and stops everything.
 */

import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createDatabase } from '../../core/store/database.ts'
import { createService } from '../../server/compose.ts'
import { officialV2Client } from '../../test/support/chain/official-payer.ts'
import { localX402Env, startLocalPaymentSetup } from '../../test/support/chain/payment-fixtures.ts'
import { testConfig } from '../../test/support/test-config.ts'

const lists = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lists')
const started = Date.now()
console.log('starting a local chain (anvil) with TestUSDC and a funded payer…')
const chain = await startLocalPaymentSetup()
const dataDir = await mkdtemp(path.join(tmpdir(), 'x402-demo-'))
const service = await createService(
  testConfig({
    PORT: '0',
    ...localX402Env(chain),
    SANCTIONS_OFAC_SOURCE: path.join(lists, 'ofac', 'sdn.csv'),
    SANCTIONS_EU_SOURCE: path.join(lists, 'eu-fsf-handmade.xml'),
    SANCTIONS_UN_SOURCE: path.join(lists, 'un', '2026-01-15', 'un_consolidated.xml'),
    SANCTIONS_STARTUP_REFRESH_DELAY_MS: '0',
  }),
  { database: await createDatabase({ dataDir }), log: () => {} },
)
const server = serve({ fetch: service.app.fetch, port: 0, hostname: '127.0.0.1' })
try {
  await new Promise((resolve) => server.once('listening', resolve))
  await service.runtime.deps.sanctionsLists?.idle()
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const payer = chain.payerKeys[0]!
  const payerAddress = chain.chain.accounts.find((account) => account.privateKey === payer)?.address
  console.log(`service on ${base}, taking USDC on the local chain (pay to ${chain.payTo})`)

  const payTo = await chain.usdc.balanceOf(chain.payTo)
  const pay = wrapFetchWithPayment(fetch, officialV2Client(chain, payer))
  const response = await pay(`${base}/v1/sanctions/screen`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ivan Petrovich Testov' }),
  })
  assert.equal(
    response.status,
    200,
    `the paid call answered ${response.status}: ${await response.clone().text()}`,
  )
  const answer = (await response.json()) as {
    result: string
    matches: { list: string; matched_name: string }[]
  }
  const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!)
  const earned = (await chain.usdc.balanceOf(chain.payTo)) - payTo
  assert.equal(settlement.success, true)
  assert.ok(earned > 0n, 'the operator received the USDC')
  console.log(
    `answer: ${answer.result}; ${answer.matches.map((match) => `${match.matched_name} (${match.list})`).join('; ')}`,
  )
  console.log(
    `paid by ${payerAddress ?? settlement.payer}: ${Number(earned) / 1e6} USDC on ${settlement.network}`,
  )
  console.log(`settlement tx: ${settlement.transaction}`)
  console.log(`demo:x402 done in ${((Date.now() - started) / 1000).toFixed(1)} s`)
} finally {
  server.close()
  await service.close()
  await chain.stop()
  await rm(dataDir, { recursive: true, force: true })
}
