import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { wrapFetchWithPayment } from '@x402/fetch'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BASE_SEPOLIA, SOLANA_DEVNET } from '../../core/payments/networks.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import type { Service } from '../../server/compose.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import type { FakeHttpServer } from '../support/fakes/fake-http-server.ts'
import { startFakeSolanaRpcServer } from '../support/fakes/fake-solana-rpc-server.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'
import { createTestService, listen } from '../support/service.ts'
import {
  generateTestSolanaKey,
  type SolanaTestChain,
  startSolanaTestChain,
} from '../support/solana/litesvm-chain.ts'
import { officialSvmClient } from '../support/solana/official-svm-payer.ts'
import {
  chainPaymentTransaction,
  type SvmPaymentParts,
  svmPaymentHeader,
  systemTransferInstruction,
  tamperAmount,
} from '../support/solana/svm-payment.ts'
import { paymentRequiredOf } from '../support/tool-errors.ts'

const PRICE = PRICES.sanctions_screen.x402.fresh
const body = JSON.stringify({ name: 'ORIENTAL OIL KISH' })

/** Solana payments verified and settled by the service itself, over REST and MCP. */
describe('x402 on Solana: the service verifies and settles the exact SVM scheme itself', () => {
  let evm: LocalPaymentSetup
  let chain: SolanaTestChain
  let rpc: FakeHttpServer
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let url: string

  beforeAll(async () => {
    evm = await startLocalPaymentSetup()
    chain = await startSolanaTestChain()
    rpc = await startFakeSolanaRpcServer(chain.svm)
    const evmEnv = localX402Env(evm)
    service = await createTestService('pglite', {
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      // Configured but unreadable (an upstream failure): the screen is a partial answer, paid.
      // Without an OFAC or EU source at all it would be a 503 service_not_configured, unpaid.
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/csv/no-such-folder/sdn.csv'),
      SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
      ...evmEnv,
      X402_NETWORKS: `${BASE_SEPOLIA},${SOLANA_DEVNET}`,
      X402_NETWORK_OVERRIDES: JSON.stringify({
        ...JSON.parse(evmEnv.X402_NETWORK_OVERRIDES!),
        [SOLANA_DEVNET]: { asset: chain.mint },
      }),
      X402_SOLANA_PAY_TO: chain.payTo.address,
      SOLANA_RPC_URL: rpc.url,
      SOLANA_FEE_PAYER_KEY: chain.feePayer.base58,
    })
    await service.runtime.deps.sanctionsLists?.idle()
    server = await listen(service)
    url = `${server.baseUrl}/v1/sanctions/screen`
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await service?.close()
    await rpc?.close()
    await evm?.stop()
  })

  const post = (headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

  async function challenge(): Promise<PaymentRequired> {
    const response = await post()
    expect(response.status).toBe(402)
    return JSON.parse(Buffer.from(response.headers.get('payment-required')!, 'base64').toString('utf8'))
  }

  const settlementRows = async () =>
    JSON.stringify(await service.database.db.execute(sql`select count(*)::int as n from settlements`))

  it("offers Solana in every challenge and in /.well-known/x402.json with the service's own extra.feePayer", async () => {
    const required = await challenge()
    expect(required.accepts).toContainEqual(
      expect.objectContaining({
        network: SOLANA_DEVNET,
        asset: chain.mint,
        payTo: chain.payTo.address,
        amount: PRICE.toString(),
        extra: { feePayer: chain.feePayer.address },
      }),
    )
    const discovery = (await (await fetch(`${server.baseUrl}/.well-known/x402.json`)).json()) as {
      networks: unknown[]
    }
    expect(discovery.networks).toContainEqual(
      expect.objectContaining({ network: SOLANA_DEVNET, extra: { feePayer: chain.feePayer.address } }),
    )
  })

  it('@x402/fetch + @x402/svm pays sanctions_screen over REST; payer and payTo move by exactly the price', async () => {
    const payer = chain.payers[0]!
    const before = {
      payer: await chain.balanceOf(payer.address),
      payTo: await chain.balanceOf(chain.payTo.address),
    }
    const response = await wrapFetchWithPayment(fetch, officialSvmClient(chain, payer, rpc.url))(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ possible_match: true })
    const receipt = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(receipt).toMatchObject({ success: true, network: SOLANA_DEVNET, payer: payer.address })
    expect(before.payer - (await chain.balanceOf(payer.address))).toBe(PRICE)
    expect((await chain.balanceOf(chain.payTo.address)) - before.payTo).toBe(PRICE)
    const rows = await service.database.db.execute(
      sql`select status, network, transaction from settlements where payer = ${payer.address}`,
    )
    expect(JSON.stringify(rows)).toContain('SETTLED')
    expect(JSON.stringify(rows)).toContain(receipt.transaction)
  })

  it('@x402/svm pays the sanctions_screen MCP tool with _meta["x402/payment"]', async () => {
    const payer = chain.payers[1]!
    const client = new Client({ name: 'solana-agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
    const unpaid = await client.callTool({
      name: 'sanctions_screen',
      arguments: { name: 'ORIENTAL OIL KISH' },
    })
    expect(unpaid.isError).toBe(true)
    const required = paymentRequiredOf<PaymentRequired>(unpaid) as PaymentRequired
    const payload = await officialSvmClient(chain, payer, rpc.url).createPaymentPayload(required)
    const before = await chain.balanceOf(chain.payTo.address)
    const paid = await client.callTool({
      name: 'sanctions_screen',
      arguments: { name: 'ORIENTAL OIL KISH' },
      _meta: { 'x402/payment': payload },
    })
    expect(paid.isError).toBeFalsy()
    expect(paid.structuredContent).toMatchObject({ possible_match: true })
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, network: SOLANA_DEVNET })
    expect((await chain.balanceOf(chain.payTo.address)) - before).toBe(PRICE)
    await client.close()
  })

  it('the official EVM client and the official SVM client pay the same operation in one run', async () => {
    const evmBefore = await evm.usdc.balanceOf(evm.payTo)
    const svmBefore = await chain.balanceOf(chain.payTo.address)
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body }
    const [viaEvm, viaSvm] = await Promise.all([
      wrapFetchWithPayment(fetch, officialV2Client(evm, evm.payerKeys[0]!))(url, init),
      wrapFetchWithPayment(fetch, officialSvmClient(chain, chain.payers[2]!, rpc.url))(url, init),
    ])
    expect([viaEvm.status, viaSvm.status]).toEqual([200, 200])
    expect(decodePaymentResponseHeader(viaEvm.headers.get('payment-response')!)).toMatchObject({
      success: true,
      network: BASE_SEPOLIA,
    })
    expect(decodePaymentResponseHeader(viaSvm.headers.get('payment-response')!)).toMatchObject({
      success: true,
      network: SOLANA_DEVNET,
    })
    expect((await evm.usdc.balanceOf(evm.payTo)) - evmBefore).toBe(PRICE)
    expect((await chain.balanceOf(chain.payTo.address)) - svmBefore).toBe(PRICE)
  })

  it('a payer without the funds is refused before the call runs (simulation): insufficient_funds, nothing run or charged', async () => {
    const poor = await generateTestSolanaKey()
    await chain.fundTokens(poor.address, PRICE - 1n)
    const before = { payTo: await chain.balanceOf(chain.payTo.address), rows: await settlementRows() }
    const payload = await officialSvmClient(chain, poor, rpc.url).createPaymentPayload(await challenge())
    const response = await post({ 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) })
    expect(response.status).toBe(402)
    expect(await response.json()).toMatchObject({ errorCode: 'insufficient_funds' })
    expect(await chain.balanceOf(chain.payTo.address)).toBe(before.payTo)
    expect(await chain.balanceOf(poor.address)).toBe(PRICE - 1n)
    expect(await settlementRows()).toBe(before.rows)
  })

  describe('hostile Solana payments are refused with their errorCode; nothing runs, nothing is charged', () => {
    async function signed(changes: Partial<SvmPaymentParts> = {}) {
      return chainPaymentTransaction(chain, chain.payers[3]!.signer, PRICE, changes)
    }

    async function expectRefused(transaction: string, code: string) {
      const required = await challenge()
      const accepted = required.accepts.find((a) => a.network === SOLANA_DEVNET)! as unknown as Record<
        string,
        unknown
      >
      const before = { payTo: await chain.balanceOf(chain.payTo.address), rows: await settlementRows() }
      const header = svmPaymentHeader(accepted, transaction, required.resource as never)
      const response = await post({ 'PAYMENT-SIGNATURE': header })
      expect(response.status).toBe(402)
      expect(await response.json()).toMatchObject({ errorCode: code })
      // The same code from the service's own facilitator route.
      const paymentPayload = JSON.parse(Buffer.from(header, 'base64').toString('utf8'))
      const verify = await fetch(`${server.baseUrl}/x402/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: accepted }),
      })
      expect(await verify.json()).toMatchObject({ isValid: false, invalidReason: code })
      expect(await chain.balanceOf(chain.payTo.address)).toBe(before.payTo)
      expect(await settlementRows()).toBe(before.rows)
    }

    it('replay of a paid transaction: the same request gets the answer it bought, another request nonce_replay', async () => {
      const required = await challenge()
      const payload = await officialSvmClient(chain, chain.payers[3]!, rpc.url).createPaymentPayload(required)
      const header = encodePaymentSignatureHeader(payload)
      const first = await post({ 'PAYMENT-SIGNATURE': header })
      expect(first.status).toBe(200)
      const answer = await first.text()
      const before = { payTo: await chain.balanceOf(chain.payTo.address), rows: await settlementRows() }
      // A retry of the settled payment (its answer may not have arrived): the same answer, paid once.
      const retry = await post({ 'PAYMENT-SIGNATURE': header })
      expect(retry.status).toBe(200)
      expect(retry.headers.get('idempotent-replayed')).toBe('true')
      expect(retry.headers.get('payment-response')).toBe(first.headers.get('payment-response'))
      expect(await retry.text()).toBe(answer)
      const replay = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
        body: JSON.stringify({ name: 'ANOTHER NAME' }),
      })
      expect(replay.status).toBe(402)
      expect(await replay.json()).toMatchObject({ errorCode: 'nonce_replay' })
      expect(await chain.balanceOf(chain.payTo.address)).toBe(before.payTo)
      expect(await settlementRows()).toBe(before.rows)
    })

    it('tampered amount: invalid_signature', async () => {
      await expectRefused(tamperAmount(await signed(), PRICE, PRICE * 100n), 'invalid_signature')
    })

    it('underpayment: insufficient_amount', async () => {
      await expectRefused(await signed({ amount: PRICE - 1n }), 'insufficient_amount')
    })

    it('wrong mint: wrong_asset', async () => {
      await expectRefused(await signed({ mint: (await generateTestSolanaKey()).address }), 'wrong_asset')
    })

    it('transfer to another account: wrong_recipient', async () => {
      await expectRefused(
        await signed({ recipient: (await generateTestSolanaKey()).address }),
        'wrong_recipient',
      )
    })

    it('extra instruction: instruction_layout', async () => {
      const drain = systemTransferInstruction(
        chain.payers[3]!.signer,
        (await generateTestSolanaKey()).address,
        1n,
      )
      await expectRefused(await signed({ extraInstructions: [drain] }), 'instruction_layout')
    })

    it('fee payer swap: fee_payer_mismatch', async () => {
      await expectRefused(
        await signed({ feePayer: (await generateTestSolanaKey()).address }),
        'fee_payer_mismatch',
      )
    })

    it('expired blockhash: expired', async () => {
      const transaction = await signed()
      chain.svm.expireBlockhash()
      await expectRefused(transaction, 'expired')
    })
  })
})
