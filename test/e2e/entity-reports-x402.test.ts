import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { like } from 'drizzle-orm'
import type { JWK } from 'jose'
import type { Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICES } from '../../core/payments/pricing.ts'
import { verifyReport } from '../../core/reports/evidence.ts'
import type { EntityReport } from '../../core/reports/report-schema.ts'
import { entityReports } from '../../core/store/schema.ts'
import type { Service } from '../../server/compose.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { type CompanyFakes, startCompanyFakes } from '../support/company-fakes.ts'
import { type DeepCheckFakes, startDeepCheckFakes } from '../support/deep-check-fakes.ts'
import { createTestService, listen } from '../support/service.ts'

const DONALD = { entity_name: 'Test BV Donald', country: 'NL', kvk_number: '68750110' }
const X402_PRICE = PRICES.entity_report.x402.fresh

/** Reports paid with x402: 0.55 USD, settled on a local chain; stored only once settled. */
describe('entity reports paid with x402', () => {
  let setup: LocalPaymentSetup
  let companies: CompanyFakes
  let deep: DeepCheckFakes
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }

  beforeAll(async () => {
    setup = await startLocalPaymentSetup()
    ;[companies, deep] = await Promise.all([startCompanyFakes(), startDeepCheckFakes()])
    // Without the on-chain funds check, so an unfunded payment reaches settlement (and fails there).
    service = await createTestService('pglite', { ...localX402Env(setup), X402_FUNDS_CHECK: 'off' })
    service.runtime.deps.companySources = companies.sources
    service.runtime.deps.sanctions = companies.sanctions
    service.runtime.deps.deepCheck = deep.sources
    server = await listen(service)
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await service?.close()
    await Promise.all([companies?.close(), deep?.close()])
    await setup?.stop()
  })

  const post = (headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/v1/reports/entity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(DONALD),
    })
  const x402Rows = () =>
    service.database.db.select().from(entityReports).where(like(entityReports.owner, 'x402:%'))

  async function paymentFor(payerKey: Hex): Promise<string> {
    const unpaid = await post()
    expect(unpaid.status).toBe(402)
    const challenge = JSON.parse(
      Buffer.from(unpaid.headers.get('payment-required') ?? '', 'base64').toString('utf8'),
    ) as PaymentRequired
    expect(challenge.accepts[0]?.amount).toBe(X402_PRICE.toString())
    return encodePaymentSignatureHeader(
      await officialV2Client(setup, payerKey).createPaymentPayload(challenge),
    )
  }

  it('a settled payment of 0.55 USD gets the signed report, stored for the payer', async () => {
    const operatorBefore = await setup.usdc.balanceOf(setup.payTo)
    const paid = await post({ 'PAYMENT-SIGNATURE': await paymentFor(setup.payerKeys[0]!) })
    expect(paid.status).toBe(200)
    expect(paid.headers.get('payment-response')).not.toBeNull()
    const report = (await paid.json()) as EntityReport
    expect((await setup.usdc.balanceOf(setup.payTo)) - operatorBefore).toBe(X402_PRICE)
    const jwks = (await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] }
    expect(await verifyReport(report, jwks)).toMatchObject({ ok: true })
    expect((await x402Rows()).map((row) => row.id)).toContain(report.report_id)
  })

  it('a payment that does not settle is 402 and no report is stored', async () => {
    const before = (await x402Rows()).length
    const operatorBefore = await setup.usdc.balanceOf(setup.payTo)
    const refused = await post({ 'PAYMENT-SIGNATURE': await paymentFor(generatePrivateKey()) })
    const text = await refused.text()
    expect(refused.status, text).toBe(402)
    expect(text).not.toContain('report_hash')
    expect(await setup.usdc.balanceOf(setup.payTo)).toBe(operatorBefore)
    expect((await x402Rows()).length).toBe(before)
  })
})
