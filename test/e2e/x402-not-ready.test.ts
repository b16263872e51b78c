import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { PaymentRequired } from '@x402/core/types'
import { wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Service } from '../../server/compose.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import {
  type LocalPaymentSetup,
  localX402Env,
  startLocalPaymentSetup,
} from '../support/chain/payment-fixtures.ts'
import { sanctionsDataPath } from '../support/sanctions/shared-data.ts'
import { createTestService, listen, TEST_ADMIN_KEY } from '../support/service.ts'
import { paymentRequiredOf } from '../support/tool-errors.ts'

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field in assertions
type Body = Record<string, any>

/**
 * The charging rule for x402 payers: when the service's own state keeps an operation from giving
 * the answer it sells (sanctions lists still loading, no list configured, maintenance), a payer
 * who signed a real payment gets the 503 and the payment is never settled: the payer's and the
 * payTo's USDC on the local chain are the same before and after, over REST and MCP.
 */
describe('x402 payers are never charged for answers the service could not give', () => {
  let setup: LocalPaymentSetup
  let silent: Server
  let loading: Service
  let loadingServer: { baseUrl: string; close(): Promise<void> }
  let unconfigured: Service
  let unconfiguredServer: { baseUrl: string; close(): Promise<void> }
  let nothingRead: Service
  let nothingReadServer: { baseUrl: string; close(): Promise<void> }

  beforeAll(async () => {
    setup = await startLocalPaymentSetup()
    // The list sources accept the connection and never answer: the first read stays pending.
    silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
    loading = await createTestService('pglite', {
      SANCTIONS_OFAC_SOURCE: `${silentUrl}/sdn.xml`,
      SANCTIONS_EU_SOURCE: `${silentUrl}/eu.xml`,
      SANCTIONS_UN_SOURCE: `${silentUrl}/un.xml`,
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
      ...localX402Env(setup),
    } as never)
    loadingServer = await listen(loading)
    // The test configuration has every list source off: nothing to wait for.
    unconfigured = await createTestService('pglite', { ...localX402Env(setup) })
    unconfiguredServer = await listen(unconfigured)
    // Every list source configured and unreadable, no register: only the country risk answers.
    nothingRead = await createTestService('pglite', {
      SANCTIONS_UN_SOURCE: sanctionsDataPath('un/no-such-file.xml'),
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/csv/no-such-folder/sdn.csv'),
      SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
      ...localX402Env(setup),
    } as never)
    await nothingRead.runtime.deps.sanctionsLists?.idle()
    nothingRead.runtime.deps.companySources = {}
    nothingReadServer = await listen(nothingRead)
  }, 120_000)

  afterAll(async () => {
    await loadingServer?.close()
    await loading?.close()
    await unconfiguredServer?.close()
    await unconfigured?.close()
    await nothingReadServer?.close()
    await nothingRead?.close()
    silent?.closeAllConnections()
    await new Promise((resolve) => silent?.close(resolve))
    await setup?.stop()
  })

  const payer = (index: number) => privateKeyToAccount(setup.payerKeys[index]!).address
  /** USDC of the payer and of the service's payTo, read from the local chain. */
  const balances = async (index: number) => ({
    payer: await setup.usdc.balanceOf(payer(index)),
    payTo: await setup.usdc.balanceOf(setup.payTo),
  })

  /** Statuses the server answered, and whether each request carried a signed payment. */
  let exchanges: { paid: boolean; status: number }[] = []
  const recordingFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init)
    const response = await fetch(request)
    exchanges.push({ paid: request.headers.has('payment-signature'), status: response.status })
    return response
  }

  const payWithV2 = (
    baseUrl: string,
    index: number,
    path = '/v1/sanctions/screen',
    body: unknown = { name: 'Kim' },
  ) => {
    exchanges = []
    return wrapFetchV2(recordingFetch, officialV2Client(setup, setup.payerKeys[index]!))(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
    )
  }

  it('lists loading, REST: the official client pays, gets 503 service_not_ready with Retry-After, nothing settles', async () => {
    const before = await balances(0)
    const response = await payWithV2(loadingServer.baseUrl, 0)
    const problem = (await response.json()) as Body
    expect(response.status, JSON.stringify(problem)).toBe(503)
    expect(response.headers.get('retry-after')).toBe('60')
    expect(response.headers.get('payment-response')).toBeNull()
    expect(problem).toMatchObject({ errorCode: 'service_not_ready', charged: false })
    // The challenge first, then the signed payment: the 503 answers a real payment.
    expect(exchanges).toEqual([
      { paid: false, status: 402 },
      { paid: true, status: 503 },
    ])
    expect(await balances(0)).toEqual(before)
  })

  it('lists loading, MCP: a tool call carrying a signed payment gets the same 503, nothing settles', async () => {
    const client = new Client({ name: 'paying-agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${loadingServer.baseUrl}/mcp`)))
    try {
      const unpaid = await client.callTool({ name: 'sanctions_screen', arguments: { name: 'Kim' } })
      const paymentRequired = paymentRequiredOf<PaymentRequired>(unpaid) as PaymentRequired
      expect(paymentRequired).toMatchObject({ x402Version: 2 })
      const payload = await officialV2Client(setup, setup.payerKeys[1]!).createPaymentPayload(paymentRequired)
      const before = await balances(1)
      const paid = (await client.callTool({
        name: 'sanctions_screen',
        arguments: { name: 'Kim' },
        _meta: { 'x402/payment': payload },
      })) as { isError?: boolean; content: { type: string; text: string }[]; _meta?: Body }
      expect(paid.isError).toBe(true)
      const text = paid.content.map((part) => part.text).join('\n')
      expect(text).toContain('service_not_ready')
      expect(text).toMatch(/"retryAfter":\s*60/)
      expect(paid._meta?.['x402/payment-response']).toBeUndefined()
      expect(await balances(1)).toEqual(before)
    } finally {
      await client.close()
    }
  })

  it('no list configured, REST: 503 service_not_configured without Retry-After, nothing settles', async () => {
    const before = await balances(2)
    const response = await payWithV2(unconfiguredServer.baseUrl, 2)
    const problem = (await response.json()) as Body
    expect(response.status, JSON.stringify(problem)).toBe(503)
    expect(response.headers.get('retry-after')).toBeNull()
    expect(problem).toMatchObject({ errorCode: 'service_not_configured', charged: false })
    expect(exchanges).toEqual([
      { paid: false, status: 402 },
      { paid: true, status: 503 },
    ])
    expect(await balances(2)).toEqual(before)
  })

  it('an entity check in which only the country risk could be read: 503 no_source_answered, not a reject, nothing settles', async () => {
    const before = await balances(1)
    const response = await payWithV2(nothingReadServer.baseUrl, 1, '/v1/entity/check', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
    })
    const problem = (await response.json()) as Body
    expect(response.status, JSON.stringify(problem)).toBe(503)
    expect(response.headers.get('retry-after')).toBe('30')
    expect(problem).toMatchObject({ errorCode: 'no_source_answered', charged: false })
    expect(exchanges).toEqual([
      { paid: false, status: 402 },
      { paid: true, status: 503 },
    ])
    expect(await balances(1)).toEqual(before)
  })

  it('maintenance, REST and MCP: 503 with the operator message before any payment is asked for, nothing settles', async () => {
    const admin = (method: string, body?: unknown) =>
      unconfigured.app.request('/v1/admin/maintenance', {
        method,
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_ADMIN_KEY },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    expect(
      (await admin('PUT', { enabled: true, message: 'Back at 14:00 UTC', retry_after_seconds: 600 })).status,
    ).toBe(200)
    try {
      const before = await balances(0)
      const response = await payWithV2(unconfiguredServer.baseUrl, 0)
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('600')
      expect(await response.json()).toMatchObject({ errorCode: 'maintenance', charged: false })
      // Maintenance answers before the payment step: no challenge, so the client never signs.
      expect(exchanges).toEqual([{ paid: false, status: 503 }])
      const client = new Client({ name: 'paying-agent', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${unconfiguredServer.baseUrl}/mcp`)))
      try {
        const tool = await client.callTool({ name: 'sanctions_screen', arguments: { name: 'Kim' } })
        expect(tool.isError).toBe(true)
        expect(JSON.stringify(tool.content)).toContain('maintenance')
        expect(paymentRequiredOf(tool)).toBeNull()
      } finally {
        await client.close()
      }
      expect(await balances(0)).toEqual(before)
    } finally {
      await admin('PUT', { enabled: false })
    }
  })
})
