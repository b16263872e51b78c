import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { eq } from 'drizzle-orm'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { entityCheckIdentity, entityHash } from '../../core/checks/index.ts'
import { PRICES, priceFor } from '../../core/payments/pricing.ts'
import { entityChecks } from '../../core/store/schema.ts'
import type { Service } from '../../server/compose.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { type CompanyFakes, startCompanyFakes } from '../support/company-fakes.ts'
import { createTestService, listen, TEST_ADMIN_KEY } from '../support/service.ts'
import { paymentRequiredOf, problemOf } from '../support/tool-errors.ts'

/**
 * Issue "Money and data under faults", defect 1: nothing produced by a call whose payment did not
 * settle may be stored, served or reused. A free key pays an entity check with a valid EIP-3009
 * authorization from a wallet holding no TestUSDC: verification passes, the check runs against the
 * fake upstreams, settlement reverts on the local chain, the answer is 402 with the output
 * withheld, and the check must not be in the key's history nor answer a later cached call.
 */

// KVK test company 68750110 (Test BV Donald): the fakes know it, so the check itself succeeds.
const X402_ENHANCED = priceFor(PRICES.entity_check.x402, 'enhanced')
const X402_CACHED = priceFor(PRICES.entity_check.x402, 'cached')
const ACCOUNT_CACHED = priceFor(PRICES.entity_check.account, 'cached')

const DONALD = { entity_name: 'Test BV Donald', country: 'NL', kvk_number: '68750110' }

interface CheckBody {
  check_id: string
  entity_hash: string
  quality: string
  trust_score: number
  cluster: string
  recommendation: string
  cached_from?: { check_id: string; quality: string }
}

interface HistoryBody {
  entity_hash: string
  total: number
  checks: { check_id: string; quality: string; trust_score: number | null }[]
}

describe('a result whose payment did not settle is never stored, served or reused', () => {
  let setup: LocalPaymentSetup
  let fakes: CompanyFakes
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }

  beforeAll(async () => {
    setup = await startLocalPaymentSetup({ fundedAmount: 10_000_000n })
    fakes = await startCompanyFakes()
    // Without the on-chain funds check, so the unfunded payment reaches settlement (the path under test).
    service = await createTestService('pglite', { ...localX402Env(setup), X402_FUNDS_CHECK: 'off' })
    service.runtime.deps.companySources = fakes.sources
    service.runtime.deps.sanctions = fakes.sanctions
    server = await listen(service)
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await service?.close()
    await fakes?.close()
    await setup?.stop()
  })

  const checkUrl = () => `${server.baseUrl}/v1/entity/check`
  const balanceOf = (address: Hex) => setup.usdc.balanceOf(address)
  const addressOf = (key: Hex) => privateKeyToAccount(key).address

  async function createFreeKey(email: string): Promise<{ apiKey: string; keyId: string }> {
    const response = await fetch(`${server.baseUrl}/v1/keys/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, tier: 'free' }),
    })
    expect(response.status).toBe(201)
    const created = (await response.json()) as { api_key: string; key_id: string; tier: string }
    expect(created.tier).toBe('free')
    const usage = (await (
      await fetch(`${server.baseUrl}/v1/keys/usage`, { headers: { 'x-api-key': created.api_key } })
    ).json()) as { balance_micros: number }
    expect(usage.balance_micros).toBe(0)
    return { apiKey: created.api_key, keyId: created.key_id }
  }

  function postCheck(body: unknown, headers: Record<string, string>) {
    return fetch(checkUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  }

  /**
   * A PAYMENT-SIGNATURE for this exact call (its quality tier sets the price), signed by the
   * official x402 v2 client for `payerKey`, from the challenge the unpaid call answers.
   */
  async function paymentFor(payerKey: Hex, body: unknown, quality: string): Promise<string> {
    const unpaid = await postCheck(body, { 'x-response-quality': quality })
    expect(unpaid.status).toBe(402)
    const challenge = JSON.parse(
      Buffer.from(unpaid.headers.get('payment-required') ?? '', 'base64').toString('utf8'),
    ) as PaymentRequired
    return encodePaymentSignatureHeader(
      await officialV2Client(setup, payerKey).createPaymentPayload(challenge),
    )
  }

  function history(apiKey: string, hash: string) {
    return fetch(`${server.baseUrl}/v1/reputation/history/${hash}`, { headers: { 'x-api-key': apiKey } })
  }

  async function storedRowsOf(keyId: string) {
    return service.database.db.select().from(entityChecks).where(eq(entityChecks.keyId, keyId))
  }

  it('REST: an enhanced check paid from an unfunded wallet is 402, withheld, and leaves nothing behind', async () => {
    const { apiKey, keyId } = await createFreeKey('unpaid-rest@example.com')
    const hash = entityHash(entityCheckIdentity(DONALD))
    const unfunded = generatePrivateKey()
    expect(await balanceOf(addressOf(unfunded))).toBe(0n)
    const operatorBefore = await balanceOf(setup.payTo)
    const kvkBefore = fakes.kvk.requests.length

    const payment = await paymentFor(unfunded, DONALD, 'enhanced')
    const refused = await postCheck(DONALD, {
      'x-api-key': apiKey,
      'x-response-quality': 'enhanced',
      'PAYMENT-SIGNATURE': payment,
    })
    const refusedText = await refused.text()
    expect(refused.status, refusedText).toBe(402)
    const refusedBody = JSON.parse(refusedText) as Record<string, unknown>
    // Verification passed and the check ran against the upstreams; settlement is what failed.
    expect(fakes.kvk.requests.length).toBeGreaterThan(kvkBefore)
    expect(refusedBody).toMatchObject({ x402Version: 1, errorCode: 'insufficient_funds' })
    expect(refusedBody.accepts).toEqual([expect.objectContaining({ amount: X402_ENHANCED.toString() })])
    // The output is withheld: nothing of the check is in the 402.
    for (const field of [
      'trust_score',
      'cluster',
      'recommendation',
      'check_id',
      'entity_hash',
      'risk_factors',
    ])
      expect(refusedBody, field).not.toHaveProperty(field)
    expect(refusedText).not.toContain(hash)
    expect(refused.headers.get('payment-response')).toBeNull()
    expect(await balanceOf(setup.payTo)).toBe(operatorBefore)

    // Not stored: the free history does not know the entity, and no row exists for the key.
    expect((await history(apiKey, hash)).status).toBe(404)
    expect(await storedRowsOf(keyId)).toEqual([])

    // Not reused: a properly paid cached call (funded wallet, same key) runs fresh.
    const kvkBeforeCached = fakes.kvk.requests.length
    const cachedPayment = await paymentFor(setup.payerKeys[0]!, DONALD, 'cached')
    const cached = await postCheck(DONALD, {
      'x-api-key': apiKey,
      'x-response-quality': 'cached',
      'PAYMENT-SIGNATURE': cachedPayment,
    })
    expect(cached.status).toBe(200)
    const cachedBody = (await cached.json()) as CheckBody
    expect(cachedBody.quality).toBe('fresh')
    expect(cachedBody).not.toHaveProperty('cached_from')
    expect(cachedBody.entity_hash).toBe(hash)
    expect(fakes.kvk.requests.length).toBeGreaterThan(kvkBeforeCached)
    expect((await balanceOf(setup.payTo)) - operatorBefore).toBe(X402_CACHED)

    // The history now holds the paid check, and only it.
    const after = await history(apiKey, hash)
    expect(after.status).toBe(200)
    const afterBody = (await after.json()) as HistoryBody
    expect(afterBody.total).toBe(1)
    expect(afterBody.checks).toEqual([
      expect.objectContaining({ check_id: cachedBody.check_id, quality: 'fresh' }),
    ])
    expect((await storedRowsOf(keyId)).map((row) => row.id)).toEqual([cachedBody.check_id])
  })

  it('REST control: the same enhanced check paid by a funded wallet is stored and answers the cached tier', async () => {
    const { apiKey } = await createFreeKey('paid-rest@example.com')
    const hash = entityHash(entityCheckIdentity(DONALD))
    const operatorBefore = await balanceOf(setup.payTo)

    const paid = await postCheck(DONALD, {
      'x-api-key': apiKey,
      'x-response-quality': 'enhanced',
      'PAYMENT-SIGNATURE': await paymentFor(setup.payerKeys[1]!, DONALD, 'enhanced'),
    })
    expect(paid.status).toBe(200)
    const paidBody = (await paid.json()) as CheckBody
    expect(paidBody).toMatchObject({ quality: 'enhanced', entity_hash: hash })
    expect((await balanceOf(setup.payTo)) - operatorBefore).toBe(X402_ENHANCED)

    const stored = await history(apiKey, hash)
    expect(stored.status).toBe(200)
    const storedBody = (await stored.json()) as HistoryBody
    expect(storedBody.checks).toEqual([
      expect.objectContaining({
        check_id: paidBody.check_id,
        quality: 'enhanced',
        trust_score: paidBody.trust_score,
        cluster: paidBody.cluster,
        recommendation: paidBody.recommendation,
      }),
    ])

    // A cached call is answered from the paid check, without asking the upstreams again.
    const kvkBefore = fakes.kvk.requests.length
    const cached = await postCheck(DONALD, {
      'x-api-key': apiKey,
      'x-response-quality': 'cached',
      'PAYMENT-SIGNATURE': await paymentFor(setup.payerKeys[1]!, DONALD, 'cached'),
    })
    expect(cached.status).toBe(200)
    expect(await cached.json()).toMatchObject({
      quality: 'cached',
      check_id: paidBody.check_id,
      trust_score: paidBody.trust_score,
      cached_from: { check_id: paidBody.check_id, quality: 'enhanced' },
    })
    expect(fakes.kvk.requests.length).toBe(kvkBefore)
  })

  it('MCP: an entity_check tool call paid from an unfunded wallet stores nothing; a funded one is stored', async () => {
    const { apiKey, keyId } = await createFreeKey('unpaid-mcp@example.com')
    // Another entity than the REST tests, so nothing they stored could answer for it.
    const input = { entity_name: 'Veneco', country: 'BE', cbe_number: '0200.065.765' }
    const hash = entityHash(entityCheckIdentity(input))
    const client = new Client({ name: 'unfunded-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': apiKey } },
      }),
    )
    try {
      const unpaid = await client.callTool({ name: 'entity_check', arguments: input })
      expect(unpaid.isError).toBe(true)
      const challenge = paymentRequiredOf<PaymentRequired>(unpaid) as PaymentRequired
      expect(challenge).toMatchObject({ x402Version: 2, accepts: [{ network: 'eip155:84532' }] })

      const operatorBefore = await balanceOf(setup.payTo)
      const refused = await client.callTool({
        name: 'entity_check',
        arguments: input,
        _meta: {
          'x402/payment': await officialV2Client(setup, generatePrivateKey()).createPaymentPayload(challenge),
        },
      })
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent).toBeUndefined()
      expect(paymentRequiredOf(refused)).toMatchObject({ x402Version: 2, errorCode: 'insufficient_funds' })
      expect(paymentRequiredOf(refused)).not.toHaveProperty('trust_score')
      expect(refused._meta?.['x402/payment-response']).toBeUndefined()
      expect(JSON.stringify(refused.content)).not.toContain(hash)
      expect(await balanceOf(setup.payTo)).toBe(operatorBefore)

      // Neither the history tool nor the REST route knows the entity; nothing was written.
      const toolHistory = await client.callTool({
        name: 'reputation_history',
        arguments: { entity_hash: hash },
      })
      expect(toolHistory.isError).toBe(true)
      expect(problemOf(toolHistory)).toMatchObject({ status: 404 })
      expect((await history(apiKey, hash)).status).toBe(404)
      expect(await storedRowsOf(keyId)).toEqual([])

      // Control over MCP: the same call paid by a funded wallet is stored for the key.
      const paid = await client.callTool({
        name: 'entity_check',
        arguments: input,
        _meta: {
          'x402/payment': await officialV2Client(setup, setup.payerKeys[2]!).createPaymentPayload(challenge),
        },
      })
      expect(paid.isError).toBeFalsy()
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true })
      const paidBody = paid.structuredContent as unknown as CheckBody
      expect(paidBody).toMatchObject({ quality: 'fresh', entity_hash: hash })
      const stored = await client.callTool({ name: 'reputation_history', arguments: { entity_hash: hash } })
      expect(stored.isError).toBeFalsy()
      expect(stored.structuredContent).toMatchObject({
        total: 1,
        checks: [{ check_id: paidBody.check_id, quality: 'fresh' }],
      })
    } finally {
      await client.close()
    }
  })

  it('a key credited by the operator after an unpaid check gets a fresh answer to its cached call', async () => {
    const { apiKey, keyId } = await createFreeKey('credited@example.com')
    const input = { ...DONALD, vat_number: 'NL857587973B01' }
    const hash = entityHash(entityCheckIdentity(input))
    const refused = await postCheck(input, {
      'x-api-key': apiKey,
      'x-response-quality': 'enhanced',
      'PAYMENT-SIGNATURE': await paymentFor(generatePrivateKey(), input, 'enhanced'),
    })
    expect(refused.status).toBe(402)
    expect(await refused.json()).toMatchObject({ errorCode: 'insufficient_funds' })
    expect((await history(apiKey, hash)).status).toBe(404)

    const credited = await fetch(`${server.baseUrl}/v1/admin/keys/${keyId}/credit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
      body: JSON.stringify({ amount_usd: '1.00' }),
    })
    expect(credited.status).toBe(200)
    const cached = await postCheck(input, { 'x-api-key': apiKey, 'x-response-quality': 'cached' })
    expect(cached.status).toBe(200)
    expect(cached.headers.get('x-charged-amount')).toBe(ACCOUNT_CACHED.toString())
    const body = (await cached.json()) as CheckBody
    expect(body.quality).toBe('fresh')
    expect(body).not.toHaveProperty('cached_from')
    expect((await storedRowsOf(keyId)).map((row) => row.id)).toEqual([body.check_id])
  })
})
