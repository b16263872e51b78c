import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch'
import { sql } from 'drizzle-orm'
import { createWalletClient, type Hex, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import { formatUsd } from '../../core/money.ts'
import { KEY_UPGRADE_PRICES, PRICES } from '../../core/payments/pricing.ts'
import type { Service } from '../../server/compose.ts'
import { officialV2Client, signPaymentHeader } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { paidRegistry } from '../support/paid-operations.ts'
import { createTestService, listen, TEST_ADMIN_KEY } from '../support/service.ts'
import { paymentRequiredOf } from '../support/tool-errors.ts'

const PRICE = PRICES.risk_score.x402.fresh
const ACCOUNT_PRICE = PRICES.risk_score.account.fresh

describe('x402 payments through the service', () => {
  let setup: LocalPaymentSetup
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let url: string

  beforeAll(async () => {
    setup = await startLocalPaymentSetup({ fundedAmount: 200_000_000n })
    service = await createTestService(
      'pglite',
      {
        ...localX402Env(setup),
        PUBLIC_BASE_URL: 'https://api.example.test',
      },
      { operations: paidRegistry },
    )
    server = await listen(service)
    url = `${server.baseUrl}/v1/test/paid-echo`
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await service?.close()
    await setup?.stop()
  })

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })

  const v2Client = (key: Hex) => officialV2Client(setup, key)
  const signedHeader = (key: Hex) => signPaymentHeader(setup, url, key)

  const balanceOf = (address: Hex) => setup.usdc.balanceOf(address)
  const payerAddress = (index: number) => privateKeyToAccount(setup.payerKeys[index]!).address

  it('answers an unpaid call with the 402 challenge in the header and the body', async () => {
    const response = await post({ text: 'hello' })
    expect(response.status).toBe(402)
    const body = (await response.json()) as { x402Version: number; accepts: Record<string, unknown>[] }
    // The body is the x402 v1 view (x402-fetch reads it): version and network names agree.
    expect(body.x402Version).toBe(1)
    expect(body.accepts[0]).toMatchObject({
      network: 'base-sepolia',
      networkId: 'eip155:84532',
      chainId: 84532,
      currency: 'USDC',
      contractAddress: setup.usdc.address,
      amount: PRICE.toString(),
      recipient: setup.payTo,
      maxAmountRequired: PRICE.toString(),
    })
    const header = JSON.parse(
      Buffer.from(response.headers.get('payment-required') ?? '', 'base64').toString(),
    )
    expect(header).toMatchObject({
      x402Version: 2,
      accepts: [{ network: 'eip155:84532', amount: PRICE.toString() }],
    })
  })

  it('names the resource with PUBLIC_BASE_URL, never with the Host header the client sent', async () => {
    // The request URL's origin is what the Host header said.
    const response = await service.app.request('http://evil.example/v1/test/paid-echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: 'evil.example' },
      body: JSON.stringify({ text: 'hello' }),
    })
    expect(response.status).toBe(402)
    const body = (await response.json()) as { resource: { url: string }; accepts: { resource: string }[] }
    expect(body.resource.url).toBe('https://api.example.test/v1/test/paid-echo')
    expect(body.accepts.map((accept) => accept.resource)).toEqual(
      body.accepts.map(() => 'https://api.example.test/v1/test/paid-echo'),
    )
  })

  it('@x402/fetch (v2) pays a real call: the operator gains exactly the price, once', async () => {
    const before = await balanceOf(setup.payTo)
    const response = await wrapFetchV2(fetch, v2Client(setup.payerKeys[0]!))(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'paid v2' }),
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ echo: 'paid v2', payer: payerAddress(0) })
    expect(response.headers.get('x-payment-verified')).toBe('true')
    expect(response.headers.get('x-payment-amount')).toBe(PRICE.toString())
    expect(decodePaymentResponseHeader(response.headers.get('payment-response')!)).toMatchObject({
      success: true,
    })
    expect((await balanceOf(setup.payTo)) - before).toBe(PRICE)
  })

  it('x402-fetch (v1) pays a real call from the 402 body', async () => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(setup.payerKeys[1]!),
      chain: setup.chain.chain,
      transport: http(setup.chain.rpcUrl),
    })
    const before = await balanceOf(setup.payTo)
    const response = await wrapFetchV1(
      fetch,
      wallet as never,
      1_000_000n,
    )(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'paid v1' }),
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ echo: 'paid v1', payer: payerAddress(1) })
    expect((await balanceOf(setup.payTo)) - before).toBe(PRICE)
  })

  it('serves a payment replayed 50 times concurrently exactly once; a copy sent after it settled gets the stored answer', async () => {
    const header = await signedHeader(setup.payerKeys[2]!)
    const before = await balanceOf(setup.payTo)
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post({ text: 'replay' }, i % 2 ? { 'PAYMENT-SIGNATURE': header } : { 'X-PAYMENT': header }),
      ),
    )
    // Run and paid once: the copies are refused while it runs, or (once it settled and its answer
    // was kept) served that same answer again, marked as a replay and charged nothing.
    const fresh = responses.filter(
      (response) => response.status === 200 && !response.headers.get('idempotent-replayed'),
    )
    const replayed = responses.filter((response) => response.headers.get('idempotent-replayed') === 'true')
    const refused = responses.filter((response) => response.status === 402)
    expect(fresh).toHaveLength(1)
    expect(replayed.length + refused.length).toBe(49)
    if (refused[0]) expect(await refused[0].json()).toMatchObject({ errorCode: 'nonce_replay' })
    const answer = await fresh[0]!.text()
    for (const response of replayed) expect(await response.text()).toBe(answer)
    const retry = await post({ text: 'replay' }, { 'PAYMENT-SIGNATURE': header })
    expect(retry.status).toBe(200)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(retry.headers.get('payment-response')).toBe(fresh[0]!.headers.get('payment-response'))
    expect(await retry.text()).toBe(answer)
    // The same payment for another request is a replayed nonce.
    const other = await post({ text: 'another request' }, { 'PAYMENT-SIGNATURE': header })
    expect(other.status).toBe(402)
    expect(await other.json()).toMatchObject({ errorCode: 'nonce_replay' })
    expect((await balanceOf(setup.payTo)) - before).toBe(PRICE)
  })

  it('settles 20 distinct payments sent at once, each exactly once on chain', async () => {
    const headers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signedHeader(setup.payerKeys[i % 3]!)),
    )
    const before = await balanceOf(setup.payTo)
    const responses = await Promise.all(
      headers.map((header) => post({ text: 'burst' }, { 'PAYMENT-SIGNATURE': header })),
    )
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200))
    expect((await balanceOf(setup.payTo)) - before).toBe(PRICE * 20n)
  })

  it('refuses an unfunded payer before the call runs: the chain is asked for balance and authorization state', async () => {
    const rowsBefore = await service.database.db.execute(sql`select count(*)::int as n from settlements`)
    const unfunded = generatePrivateKey()
    const response = await post({ text: 'unfunded' }, { 'PAYMENT-SIGNATURE': await signedHeader(unfunded) })
    expect(response.status).toBe(402)
    expect(await response.json()).toMatchObject({ errorCode: 'insufficient_funds' })
    const rowsAfter = await service.database.db.execute(sql`select count(*)::int as n from settlements`)
    expect(JSON.stringify(rowsAfter)).toBe(JSON.stringify(rowsBefore))
  })

  it('never charges for a call whose operation fails', async () => {
    const header = await signedHeader(setup.payerKeys[2]!)
    const payerBefore = await balanceOf(payerAddress(2))
    const response = await post({ text: 'boom', fail: true }, { 'PAYMENT-SIGNATURE': header })
    expect(response.status).toBe(503)
    expect(await balanceOf(payerAddress(2))).toBe(payerBefore)
    const rows = (await service.database.db.execute(
      sql`select status, phase from settlements where operation = 'paid_echo' and status = 'FAILED'`,
    )) as unknown as { rows?: unknown[] } | unknown[]
    const list = Array.isArray(rows) ? rows : (rows.rows ?? [])
    expect(list).toContainEqual({ status: 'FAILED', phase: 'released' })
  })

  it('gives each payment rejection its own errorCode', async () => {
    const valid = await signedHeader(setup.payerKeys[0]!)
    const decoded = JSON.parse(Buffer.from(valid, 'base64').toString()) as {
      payload: { authorization: Record<string, string>; signature: string }
      accepted: Record<string, unknown>
    }
    const tamper = (change: (payload: typeof decoded) => void) => {
      const copy = structuredClone(decoded)
      change(copy)
      return Buffer.from(JSON.stringify(copy)).toString('base64')
    }
    const cases: [string, string][] = [
      ['not base64 json', 'malformed_payload'],
      [
        tamper((p) => {
          p.payload.authorization.value = (PRICE - 1n).toString()
        }),
        'insufficient_amount',
      ],
      [
        tamper((p) => {
          p.payload.authorization.value = (PRICE + 1n).toString()
        }),
        'invalid_signature',
      ],
      [
        tamper((p) => {
          p.payload.authorization.validBefore = String(Math.floor(Date.now() / 1000) - 10)
        }),
        'expired',
      ],
      [
        tamper((p) => {
          p.accepted.network = 'eip155:1'
        }),
        'unsupported_network',
      ],
    ]
    for (const [header, code] of cases) {
      const response = await post({ text: 'x' }, { 'PAYMENT-SIGNATURE': header })
      expect(response.status, code).toBe(402)
      expect(await response.json(), code).toMatchObject({ errorCode: code })
    }
  })

  it('debits a live key at the account price, then challenges when its balance runs out', async () => {
    const created = await fetch(`${server.baseUrl}/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
      body: JSON.stringify({
        email: 'p@example.com',
        tier: 'starter',
        balance_usd: formatUsd(ACCOUNT_PRICE + 1n),
      }),
    })
    const { api_key: apiKey } = (await created.json()) as { api_key: string }
    const first = await post({ text: 'by key' }, { 'x-api-key': apiKey })
    expect(first.status).toBe(200)
    const second = await post({ text: 'by key' }, { 'x-api-key': apiKey })
    expect(second.status).toBe(402)
    expect(await second.json()).toMatchObject({ errorCode: 'insufficient_balance' })
    const usage = (await (
      await fetch(`${server.baseUrl}/v1/keys/usage`, { headers: { 'x-api-key': apiKey } })
    ).json()) as {
      balance_micros: number
      spent_micros: number
    }
    expect(BigInt(usage.balance_micros)).toBe(1n)
    expect(BigInt(usage.spent_micros)).toBe(ACCOUNT_PRICE)
    // The same key may pay this call per call instead.
    const paid = await post(
      { text: 'key + x402' },
      { 'x-api-key': apiKey, 'PAYMENT-SIGNATURE': await signedHeader(setup.payerKeys[1]!) },
    )
    expect(paid.status).toBe(200)
  })

  it('serves exactly 500 of 1,000 concurrent key calls when the balance covers 500', async () => {
    const created = await service.app.request('/v1/admin/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
      body: JSON.stringify({
        email: 'burst@example.com',
        tier: 'pro',
        balance_usd: formatUsd(ACCOUNT_PRICE * 500n),
      }),
    })
    const { api_key: apiKey } = (await created.json()) as { api_key: string }
    const responses = await Promise.all(
      Array.from({ length: 1000 }, () =>
        service.app.request('/v1/test/paid-echo', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ text: 'burst' }),
        }),
      ),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(500)
    expect(statuses.filter((status) => status === 402)).toHaveLength(500)
    const usage = (await (
      await service.app.request('/v1/keys/usage', { headers: { 'x-api-key': apiKey } })
    ).json()) as { balance_micros: number; paid_calls: number }
    expect(usage).toMatchObject({ balance_micros: 0, paid_calls: 500 })
  })

  it('tops up a key with an x402 payment and raises its tier', async () => {
    const created = await fetch(`${server.baseUrl}/v1/keys/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'u@example.com', tier: 'free' }),
    })
    const { api_key: apiKey } = (await created.json()) as { api_key: string }
    const upgradeUrl = `${server.baseUrl}/v1/keys/upgrade/starter`
    const unpaid = await fetch(upgradeUrl, { method: 'POST', headers: { 'x-api-key': apiKey } })
    expect(unpaid.status).toBe(402)
    const before = await balanceOf(setup.payTo)
    const paid = await wrapFetchV2(fetch, v2Client(setup.payerKeys[2]!))(upgradeUrl, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
    })
    expect(paid.status).toBe(200)
    expect(await paid.json()).toMatchObject({
      tier: 'starter',
      balance_micros: Number(KEY_UPGRADE_PRICES.starter),
      credited_micros: Number(KEY_UPGRADE_PRICES.starter),
    })
    expect((await balanceOf(setup.payTo)) - before).toBe(KEY_UPGRADE_PRICES.starter)
  })

  it('pays an MCP tool call with _meta["x402/payment"] and returns _meta["x402/payment-response"]', async () => {
    const client = new Client({ name: 'paying-agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
    const unpaid = await client.callTool({ name: 'paid_echo', arguments: { text: 'mcp' } })
    expect(unpaid.isError).toBe(true)
    expect(unpaid.structuredContent).toBeUndefined()
    const paymentRequired = paymentRequiredOf<PaymentRequired>(unpaid) as PaymentRequired
    expect(paymentRequired).toMatchObject({ x402Version: 2, accepts: [{ network: 'eip155:84532' }] })
    const payload = await v2Client(setup.payerKeys[0]!).createPaymentPayload(paymentRequired)
    const before = await balanceOf(setup.payTo)
    const paid = await client.callTool({
      name: 'paid_echo',
      arguments: { text: 'mcp' },
      _meta: { 'x402/payment': payload },
    })
    expect(paid.isError).toBeFalsy()
    expect(paid.structuredContent).toEqual({ echo: 'mcp', payer: payerAddress(0) })
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, network: 'eip155:84532' })
    expect((await balanceOf(setup.payTo)) - before).toBe(PRICE)
    await client.close()
  })

  it('answers /x402/verify without using the payment up, and /x402/settle settles it', async () => {
    const header = await signedHeader(setup.payerKeys[2]!)
    const paymentPayload = JSON.parse(Buffer.from(header, 'base64').toString()) as { accepted: unknown }
    const body = JSON.stringify({
      x402Version: 2,
      paymentPayload,
      paymentRequirements: paymentPayload.accepted,
    })
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body }
    for (let i = 0; i < 2; i++) {
      const verify = await fetch(`${server.baseUrl}/x402/verify`, init)
      expect(await verify.json()).toMatchObject({ isValid: true, payer: payerAddress(2) })
    }
    const settle = await fetch(`${server.baseUrl}/x402/settle`, init)
    expect(await settle.json()).toMatchObject({ success: true, payer: payerAddress(2) })
    const again = await fetch(`${server.baseUrl}/x402/settle`, init)
    expect(await again.json()).toMatchObject({ success: false, errorReason: 'nonce_replay' })
  })

  it('refuses to verify or settle requirements the service never issues: a 1-micro price, another origin', async () => {
    const payToBefore = await balanceOf(setup.payTo)
    const header = await signedHeader(setup.payerKeys[0]!)
    const paymentPayload = JSON.parse(Buffer.from(header, 'base64').toString()) as {
      accepted: Record<string, unknown>
      resource: { url: string }
    }
    expect(paymentPayload.resource.url).toBe('https://api.example.test/v1/test/paid-echo')
    const cases: [Record<string, unknown>, string][] = [
      [{ ...paymentPayload.accepted, amount: '1' }, paymentPayload.resource.url],
      [paymentPayload.accepted, 'https://evil.example/v1/test/paid-echo'],
      [paymentPayload.accepted, 'https://api.example.test/v1/unknown'],
    ]
    for (const [paymentRequirements, resourceUrl] of cases) {
      const body = JSON.stringify({
        x402Version: 2,
        paymentPayload: { ...paymentPayload, resource: { url: resourceUrl } },
        paymentRequirements,
      })
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body }
      expect(await (await fetch(`${server.baseUrl}/x402/verify`, init)).json()).toMatchObject({
        isValid: false,
        invalidReason: 'invalid_requirements',
      })
      expect(await (await fetch(`${server.baseUrl}/x402/settle`, init)).json()).toMatchObject({
        success: false,
        errorReason: 'invalid_requirements',
      })
    }
    expect(await balanceOf(setup.payTo)).toBe(payToBefore)
  })

  it('discloses settlement figures to the operator only', async () => {
    const admin = (await (
      await fetch(`${server.baseUrl}/v1/financial/health`, { headers: { 'x-api-key': TEST_ADMIN_KEY } })
    ).json()) as Record<string, unknown>
    expect(admin).toMatchObject({
      settlement_configured: true,
      solana_settlement_configured: false,
      pending_settlements: 0,
      frozen: false,
    })
    expect(admin.total_revenue_usdc).toBeGreaterThan(0)
    expect(admin.treasury_balance_usdc).toBeGreaterThan(0)
    const created = await fetch(`${server.baseUrl}/v1/keys/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'c@example.com', tier: 'free' }),
    })
    const { api_key: apiKey } = (await created.json()) as { api_key: string }
    const customer = (await (
      await fetch(`${server.baseUrl}/v1/financial/health`, { headers: { 'x-api-key': apiKey } })
    ).json()) as Record<string, unknown>
    expect(customer).toEqual({ total_revenue_usdc: 0, agents_tracked: 0, frozen: false })
  })

  it('publishes accepted networks and prices at /.well-known/x402.json', async () => {
    const document = (await (await fetch(`${server.baseUrl}/.well-known/x402.json`)).json()) as {
      networks: { network: string; payTo: string }[]
      operations: { operation: string }[]
    }
    expect(document.networks).toEqual([
      expect.objectContaining({ network: 'eip155:84532', payTo: setup.payTo }),
    ])
    expect(document.operations.map((operation) => operation.operation)).toEqual(['paid_echo'])
  })
})
