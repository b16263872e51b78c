import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICES } from '../../core/payments/pricing.ts'
import type { Service } from '../../server/compose.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { type DeepCheckFakes, startDeepCheckFakes } from '../support/deep-check-fakes.ts'
import type { FakeHttpServer } from '../support/fakes/index.ts'
import { createTestService, listen, TEST_ADMIN_KEY } from '../support/service.ts'
import { paymentRequiredOf, problemOf } from '../support/tool-errors.ts'

const ACCOUNT_FRESH = PRICES.entity_deep_check.account.fresh
const ACCOUNT_ENHANCED = PRICES.entity_deep_check.account.enhanced ?? 0n
const X402_FRESH = PRICES.entity_deep_check.x402.fresh

const PERSON = { entity_name: 'Jan Voorbeeld', country: 'NL' }
const DONALD = { entity_name: 'Test BV Donald', country: 'NL', kvk_number: '68750110' }
interface DeepBody {
  processing_time_ms: number
  pep_extended: unknown
  insolvency_records: unknown
  adverse_media: { articles: unknown[] }
}

const ITALIAN = { entity_name: 'Esempio SRL', country: 'IT', credit_report_identifier: '12345678903' }

describe('POST /v1/entity/deep-check (entity_deep_check)', () => {
  let setup: LocalPaymentSetup
  let fakes: DeepCheckFakes
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let apiKey: string

  beforeAll(async () => {
    setup = await startLocalPaymentSetup()
    fakes = await startDeepCheckFakes()
    service = await createTestService('pglite', localX402Env(setup))
    service.runtime.deps.deepCheck = fakes.sources
    server = await listen(service)
    const created = await fetch(`${server.baseUrl}/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
      body: JSON.stringify({ email: 'deep@example.com', tier: 'pro', balance_usd: '100' }),
    })
    apiKey = ((await created.json()) as { api_key: string }).api_key
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await service?.close()
    await fakes?.close()
    await setup?.stop()
  })

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/v1/entity/deep-check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  const balance = async () =>
    (
      (await (
        await fetch(`${server.baseUrl}/v1/keys/usage`, { headers: { 'x-api-key': apiKey } })
      ).json()) as {
        balance_micros: number
      }
    ).balance_micros

  async function refusing<T>(fake: FakeHttpServer, work: () => Promise<T>): Promise<T> {
    await fake.refuse()
    try {
      return await work()
    } finally {
      await fake.resume()
    }
  }

  it('fresh: PEP/RCA match and the Dutch insolvency register by KVK number, charged the fresh price', async () => {
    const before = await balance()
    const person = await post(PERSON, { 'x-api-key': apiKey })
    expect(person.status).toBe(200)
    expect(person.headers.get('x-charged-amount')).toBe(ACCOUNT_FRESH.toString())
    const body = (await person.json()) as DeepBody
    expect(body).toMatchObject({
      entity_name: 'Jan Voorbeeld',
      quality: 'fresh',
      tiers: ['fresh'],
      sources_returned: ['opensanctions', 'insolvency_register'],
      pep_extended: {
        screened: true,
        pep_exposure: 'pep',
        match_count: 1,
        matches: [
          {
            caption: 'Jan Voorbeeld',
            schema_type: 'Person',
            topics: ['role.pep'],
            datasets: ['wd_peps', 'nl_parliament'],
            score: 1,
            countries: ['nl'],
            birth_date: '1961-04-12',
          },
        ],
        truncated: false,
      },
      insolvency_records: {
        screened: true,
        applicable: true,
        jurisdiction: 'NL',
        query_by: 'name',
        found: false,
      },
    })
    expect(body.processing_time_ms).toEqual(expect.any(Number))
    expect(body).not.toHaveProperty('adverse_media')
    expect(BigInt(await balance())).toBe(BigInt(before) - ACCOUNT_FRESH)

    const company = (await (await post(DONALD, { 'x-api-key': apiKey })).json()) as DeepBody
    expect(company.pep_extended).toMatchObject({ pep_exposure: 'none', match_count: 0 })
    expect(company.insolvency_records).toMatchObject({
      query_by: 'kvk_number',
      found: true,
      match_count: 1,
      records: [
        { insolvency_number: 'F.13/25/412', type: 'bankruptcy', kvk_number: '68750110', ended: false },
      ],
    })
  })

  it('enhanced adds adverse media from GDELT; outside NL the register is not applicable and not asked', async () => {
    const cirBefore = fakes.cir.requests.length
    const response = await post(
      { entity_name: 'Test BV Donald', country: 'BE' },
      { 'x-api-key': apiKey, 'x-response-quality': 'enhanced' },
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('x-charged-amount')).toBe(ACCOUNT_ENHANCED.toString())
    const body = (await response.json()) as DeepBody
    expect(body).toMatchObject({
      quality: 'enhanced',
      sources_returned: ['opensanctions', 'gdelt'],
      insolvency_records: { screened: false, applicable: false, jurisdiction: 'NL', records: [] },
      adverse_media: { screened: true, source: 'gdelt', article_count: 2 },
    })
    expect(body.adverse_media.articles[0]).toMatchObject({
      source: 'news.example.nl',
      tone: -6,
      date: '2026-11-20T08:15:00Z',
    })
    expect(fakes.cir.requests.length).toBe(cirBefore)
  })

  it('the credit tier: an Italian credit report with credit_report_identifier; outside Italy 422; not enabled 403', async () => {
    const italian = await post(ITALIAN, { 'x-api-key': apiKey })
    expect(italian.status).toBe(200)
    expect(await italian.json()).toMatchObject({
      tiers: ['fresh', 'credit'],
      sources_returned: ['opensanctions', 'credit_report'],
      credit_report: {
        found: true,
        company_name: 'ESEMPIO SRL',
        score: 72,
        rating: 'A2',
        provider: 'credit_report',
      },
    })
    const dutch = await post({ ...DONALD, credit_report_identifier: '12345678903' }, { 'x-api-key': apiKey })
    expect(dutch.status).toBe(422)
    expect(await dutch.json()).toMatchObject({ detail: [{ field: 'credit_report_identifier' }] })

    const before = await balance()
    const { credit, ...withoutCredit } = fakes.sources
    service.runtime.deps.deepCheck = withoutCredit
    try {
      const off = await post(ITALIAN, { 'x-api-key': apiKey })
      expect(off.status).toBe(403)
      expect(await off.json()).toMatchObject({ errorCode: 'credit_tier_not_enabled' })
    } finally {
      service.runtime.deps.deepCheck = { ...withoutCredit, credit }
    }
    expect(await balance()).toBe(before)
  })

  it('each unreachable source of the requested tier: 503 naming it over REST with a key, nothing debited', async () => {
    const cases: [FakeHttpServer, unknown, string, string][] = [
      [fakes.yente, PERSON, 'fresh', 'opensanctions_unavailable'],
      [fakes.cir, DONALD, 'fresh', 'insolvency_register_unavailable'],
      [fakes.gdelt, DONALD, 'enhanced', 'gdelt_unavailable'],
      [fakes.risk, ITALIAN, 'fresh', 'credit_report_unavailable'],
    ]
    for (const [fake, input, quality, errorCode] of cases) {
      const before = await balance()
      const response = await refusing(fake, () =>
        post(input, { 'x-api-key': apiKey, 'x-response-quality': quality }),
      )
      expect(response.status, errorCode).toBe(503)
      expect(response.headers.get('retry-after')).toBe('30')
      expect(response.headers.get('x-charged-amount')).toBeNull()
      expect(await response.json()).toMatchObject({ status: 503, errorCode })
      expect(await balance(), errorCode).toBe(before)
    }
    // A source that is not configured at all: 503 naming what the operator must set, and no
    // Retry-After (waiting cannot help), nothing debited.
    const { pep: _pep, ...withoutPep } = fakes.sources
    service.runtime.deps.deepCheck = withoutPep
    try {
      const before = await balance()
      const response = await post(PERSON, { 'x-api-key': apiKey })
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBeNull()
      expect(await response.json()).toMatchObject({
        errorCode: 'service_not_configured',
        charged: false,
        parts_not_ready: [
          {
            part: 'pep',
            reason: 'not_configured',
            operator_action: expect.stringContaining('YENTE_URL'),
          },
        ],
      })
      expect(await balance()).toBe(before)
    } finally {
      service.runtime.deps.deepCheck = fakes.sources
    }
  })

  it('MCP with a key: the tool answers; an unreachable source is a 503 tool error and nothing is debited', async () => {
    const client = new Client({ name: 'deep-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': apiKey } },
      }),
    )
    try {
      const ok = await client.callTool({ name: 'entity_deep_check', arguments: PERSON })
      expect(ok.isError).toBeFalsy()
      expect(ok.structuredContent).toMatchObject({ pep_extended: { pep_exposure: 'pep' } })
      const before = await balance()
      const failed = await refusing(fakes.cir, () =>
        client.callTool({ name: 'entity_deep_check', arguments: DONALD }),
      )
      expect(failed.isError).toBe(true)
      expect(problemOf(failed)).toMatchObject({ status: 503, errorCode: 'insolvency_register_unavailable' })
      expect(await balance()).toBe(before)
    } finally {
      await client.close()
    }
  })

  async function paymentFor(payerKey: Hex, body: unknown): Promise<string> {
    const unpaid = await post(body)
    expect(unpaid.status).toBe(402)
    const challenge = JSON.parse(
      Buffer.from(unpaid.headers.get('payment-required') ?? '', 'base64').toString('utf8'),
    ) as PaymentRequired
    return encodePaymentSignatureHeader(
      await officialV2Client(setup, payerKey).createPaymentPayload(challenge),
    )
  }

  it('x402 over REST: an unreachable source is 503 and the payment is not settled; a reachable one settles', async () => {
    const payer = setup.payerKeys[0]!
    const payerAddress = privateKeyToAccount(payer).address
    const operatorBefore = await setup.usdc.balanceOf(setup.payTo)
    const payerBefore = await setup.usdc.balanceOf(payerAddress)
    const signature = await paymentFor(payer, PERSON)
    const failed = await refusing(fakes.yente, () => post(PERSON, { 'PAYMENT-SIGNATURE': signature }))
    expect(failed.status).toBe(503)
    expect(await failed.json()).toMatchObject({ errorCode: 'opensanctions_unavailable' })
    expect(failed.headers.get('payment-response')).toBeNull()
    expect(await setup.usdc.balanceOf(setup.payTo)).toBe(operatorBefore)
    expect(await setup.usdc.balanceOf(payerAddress)).toBe(payerBefore)

    const paid = await post(PERSON, { 'PAYMENT-SIGNATURE': await paymentFor(payer, PERSON) })
    expect(paid.status).toBe(200)
    expect((await setup.usdc.balanceOf(setup.payTo)) - operatorBefore).toBe(X402_FRESH)
  })

  it('x402 over MCP: an unreachable source is a 503 tool error and the payment is not settled', async () => {
    const client = new Client({ name: 'paying-agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
    try {
      const unpaid = await client.callTool({ name: 'entity_deep_check', arguments: DONALD })
      const challenge = paymentRequiredOf<PaymentRequired>(unpaid) as PaymentRequired
      expect(challenge).toMatchObject({ x402Version: 2 })
      const operatorBefore = await setup.usdc.balanceOf(setup.payTo)
      const payment = await officialV2Client(setup, setup.payerKeys[1]!).createPaymentPayload(challenge)
      const failed = await refusing(fakes.cir, () =>
        client.callTool({ name: 'entity_deep_check', arguments: DONALD, _meta: { 'x402/payment': payment } }),
      )
      expect(failed.isError).toBe(true)
      expect(problemOf(failed)).toMatchObject({ status: 503, errorCode: 'insolvency_register_unavailable' })
      expect(failed._meta?.['x402/payment-response']).toBeUndefined()
      expect(await setup.usdc.balanceOf(setup.payTo)).toBe(operatorBefore)
    } finally {
      await client.close()
    }
  })

  it('sandbox keys get 403; unknown fields 422', async () => {
    const created = await fetch(`${server.baseUrl}/v1/keys/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'sandbox-deep@example.com', tier: 'sandbox' }),
    })
    const sandbox = ((await created.json()) as { api_key: string }).api_key
    expect((await post(PERSON, { 'x-api-key': sandbox })).status).toBe(403)
    const extra = await post({ ...PERSON, iban: 'x' }, { 'x-api-key': apiKey })
    expect(extra.status).toBe(422)
  })
})
