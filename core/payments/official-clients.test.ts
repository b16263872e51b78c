import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch'
import { createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPaymentHeader } from 'x402/client'
import type { PaymentRequirements as V1Requirements } from 'x402/types'
import { wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import { settlementHeaders } from '../../http/payment-headers.ts'
import { type LocalPaymentSetup, startLocalPaymentSetup } from '../../test/support/chain/payment-fixtures.ts'
import { systemClock } from '../context.ts'
import { buildPaymentChallenge, encodeBase64Json } from './challenge.ts'
import { exactEvmScheme } from './evm/scheme.ts'
import { createOnChainSettler } from './evm/settle.ts'
import { createMemoryNonceStore } from './ledger/nonce-store.ts'
import { settlementReceipt } from './payment-gate.ts'
import { type PaymentRequirement, paymentRequirementsFor } from './requirements.ts'
import type { Settler } from './settle-result.ts'
import { createPaymentVerifier, type PaymentVerifier } from './verify-payment.ts'

let setup: LocalPaymentSetup
let verifier: PaymentVerifier
let settler: Settler
let requirements: PaymentRequirement[]
let server: Server
let serverUrl: string

/** A minimal paid endpoint built only from the payments core, the way the HTTP layer will wire it. */
function startPaidEndpoint(): Promise<void> {
  server = createServer(async (req, res) => {
    const header = req.headers['payment-signature'] ?? req.headers['x-payment']
    if (typeof header !== 'string') {
      const challenge = buildPaymentChallenge(requirements)
      res.writeHead(402, {
        'content-type': 'application/json',
        'PAYMENT-REQUIRED': encodeBase64Json(challenge.paymentRequired),
      })
      res.end(JSON.stringify(challenge.body))
      return
    }
    const verified = await verifier.verify({ header }, requirements)
    if (!verified.isValid) {
      const challenge = buildPaymentChallenge(requirements, { code: verified.invalidReason })
      res.writeHead(402, {
        'content-type': 'application/json',
        'PAYMENT-REQUIRED': encodeBase64Json(challenge.paymentRequired),
      })
      res.end(JSON.stringify(challenge.body))
      return
    }
    const settled = await settler.settle(verified)
    res.writeHead(settled.success ? 200 : 402, {
      'content-type': 'application/json',
      ...settlementHeaders(settlementReceipt(verified, settled, 'settled')),
    })
    res.end(JSON.stringify({ risk_score: 12, payer: verified.payer }))
  })
  server.listen(0, '127.0.0.1')
  return once(server, 'listening').then(() => {
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/risk/score`
  })
}

beforeAll(async () => {
  setup = await startLocalPaymentSetup()
  verifier = createPaymentVerifier({
    clock: systemClock,
    schemes: {
      evm: exactEvmScheme({
        config: setup.config,
        nonceStore: createMemoryNonceStore({ clock: systemClock }),
      }),
    },
  })
  settler = createOnChainSettler({
    privateKey: setup.operatorKey,
    rpcUrls: { 'eip155:84532': setup.chain.rpcUrl },
    receiptTimeoutMs: 10_000,
  })
  await startPaidEndpoint()
  requirements = paymentRequirementsFor(setup.config, {
    operationId: 'risk_score',
    quality: 'fresh',
    resourceUrl: serverUrl,
    description: 'Risk score',
  })
})

afterAll(async () => {
  server?.close()
  await setup?.stop()
})

/** The official v2 client; the local TestUSDC is not a default asset, so it is allowed explicitly. */
function officialClient(key: `0x${string}`) {
  const client = new x402Client().register('eip155:84532', new ExactEvmScheme(privateKeyToAccount(key)))
  client.setSpendControls({ allowedAssets: [{ network: 'eip155:84532', asset: setup.usdc.address }] })
  return client
}

async function balances(payer: `0x${string}`) {
  return { payer: await setup.usdc.balanceOf(payer), payTo: await setup.usdc.balanceOf(setup.payTo) }
}

describe('payments made by the official x402 clients', () => {
  it('@x402/evm ExactEvmScheme (v2): verifies and settles, moving exactly the amount on chain', async () => {
    const account = privateKeyToAccount(setup.payerKeys[0]!)
    const client = officialClient(setup.payerKeys[0]!)
    const challenge = buildPaymentChallenge(requirements)
    const payload = await client.createPaymentPayload(challenge.paymentRequired as unknown as PaymentRequired)
    const header = encodePaymentSignatureHeader(payload)

    const before = await balances(account.address)
    const verified = await verifier.verify({ header }, requirements)
    expect(verified).toMatchObject({ isValid: true, payer: account.address, amount: 180_000n })
    if (!verified.isValid) return
    const settled = await settler.settle(verified)
    expect(settled).toMatchObject({ success: true, network: 'eip155:84532', amount: '180000' })
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    const after = await balances(account.address)
    expect(after.payTo - before.payTo).toBe(180_000n)
    expect(before.payer - after.payer).toBe(180_000n)
  })

  it('x402 v1 createPaymentHeader (as x402-fetch uses it): verifies and settles from the body challenge', async () => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(setup.payerKeys[1]!),
      chain: setup.chain.chain,
      transport: http(setup.chain.rpcUrl),
    })
    const challenge = buildPaymentChallenge(requirements)
    const item = challenge.body.accepts[0] as unknown as V1Requirements
    const header = await createPaymentHeader(wallet as never, 1, item)

    const before = await balances(wallet.account.address)
    const verified = await verifier.verify({ header }, requirements)
    expect(verified).toMatchObject({ isValid: true, payer: wallet.account.address, amount: 180_000n })
    if (!verified.isValid) return
    expect(await settler.settle(verified)).toMatchObject({ success: true })
    const after = await balances(wallet.account.address)
    expect(after.payTo - before.payTo).toBe(180_000n)
    expect(before.payer - after.payer).toBe(180_000n)
  })

  it('x402-fetch pays the 402 body end to end and gets a settled answer', async () => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(setup.payerKeys[2]!),
      chain: setup.chain.chain,
      transport: http(setup.chain.rpcUrl),
    })
    const before = await balances(wallet.account.address)
    const paidFetch = wrapFetchV1(fetch, wallet as never, 1_000_000n)
    const response = await paidFetch(serverUrl, { method: 'POST', body: '{}' })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-payment-verified')).toBe('true')
    expect(response.headers.get('x-payment-amount')).toBe('180000')
    const settlement = decodePaymentResponseHeader(response.headers.get('x-payment-response')!)
    expect(settlement).toMatchObject({
      success: true,
      payer: wallet.account.address,
      network: 'eip155:84532',
    })
    const after = await balances(wallet.account.address)
    expect(after.payTo - before.payTo).toBe(180_000n)
  })

  it('@x402/fetch pays from the PAYMENT-REQUIRED header end to end and reads PAYMENT-RESPONSE', async () => {
    const account = privateKeyToAccount(setup.payerKeys[0]!)
    const client = officialClient(setup.payerKeys[0]!)
    const before = await balances(account.address)
    const response = await wrapFetchV2(fetch, client)(serverUrl, { method: 'POST', body: '{}' })
    expect(response.status).toBe(200)
    const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settlement).toMatchObject({ success: true, payer: account.address })
    expect((await balances(account.address)).payer).toBe(before.payer - 180_000n)
  })

  it('a replayed official payment is refused as nonce_replay with errorCode in the 402', async () => {
    const client = officialClient(setup.payerKeys[1]!)
    const payload = await client.createPaymentPayload(
      buildPaymentChallenge(requirements).paymentRequired as unknown as PaymentRequired,
    )
    const header = encodePaymentSignatureHeader(payload)
    const first = await fetch(serverUrl, { method: 'POST', headers: { 'PAYMENT-SIGNATURE': header } })
    expect(first.status).toBe(200)
    const second = await fetch(serverUrl, { method: 'POST', headers: { 'X-PAYMENT': header } })
    expect(second.status).toBe(402)
    expect(await second.json()).toMatchObject({ x402Version: 1, errorCode: 'nonce_replay' })
  })
})
