import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { usd } from '../../core/money.ts'
import type { Service } from '../../server/compose.ts'
import { createTestService, listen } from '../support/service.ts'
import { paymentRequiredOf, problemOf } from '../support/tool-errors.ts'

/**
 * A key whose balance does not cover a call gets 402 with errorCode insufficient_balance and how
 * to top up (spec: Errors, 402; never 403), over REST and MCP, whether or not the server takes x402
 * payments; the balance is left as it was.
 */
const BASE = 'https://api.example.test'
const SCREEN = { name: 'Nobody In Particular' }

describe.each([
  ['x402 off', {}],
  [
    'x402 on',
    {
      X402_PAY_TO: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
      X402_NETWORKS: 'eip155:84532',
      // Never reached: these calls carry no payment.
      X402_FACILITATOR_URL: 'http://127.0.0.1:9',
    },
  ],
] as const)('a key short of balance, %s', (mode, x402Config) => {
  const x402 = mode === 'x402 on'
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let apiKey: string
  let keyId: string

  beforeAll(async () => {
    service = await createTestService('pglite', { PUBLIC_BASE_URL: BASE, ...x402Config })
    server = await listen(service)
    // The screen costs 0.11 from a balance; this key holds 0.10.
    const created = await service.runtime.keys.create({
      email: 'short@example.com',
      tier: 'starter',
      balance: usd('0.10'),
    })
    apiKey = created.apiKey
    keyId = created.record.id
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
  })

  /** The top-up advice, with URLs on the base the call was made to (REST: the request's; MCP: PUBLIC_BASE_URL). */
  const topUp = (base: string) => ({
    price_usd: '0.11',
    balance_url: `${base}/v1/keys/usage`,
    ...(x402
      ? {
          upgrade_url: `${base}/v1/keys/upgrade/{tier}`,
          tiers: { starter: '25.00', pro: '100.00', enterprise: '500.00' },
        }
      : {}),
    how: expect.any(String),
  })

  it('answers REST with 402 insufficient_balance and how to top up; nothing is debited', async () => {
    const response = await fetch(`${server.baseUrl}/v1/sanctions/screen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(SCREEN),
    })
    expect(response.status).toBe(402)
    const body = (await response.json()) as Record<string, unknown>
    expect(body).toMatchObject({ errorCode: 'insufficient_balance', top_up: topUp(server.baseUrl) })
    if (x402) {
      // The challenge: the same call can be paid per call at once.
      expect(response.headers.get('content-type')).toContain('application/json')
      expect(response.headers.get('payment-required')).toBeTruthy()
      expect(body).toMatchObject({
        x402Version: 1,
        error: expect.stringContaining('/v1/keys/upgrade/{tier}'),
      })
      expect((body.accepts as unknown[]).length).toBeGreaterThan(0)
    } else {
      // Nothing to pay per call: a problem document that says the operator credits keys.
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      expect(response.headers.get('payment-required')).toBeNull()
      expect(body).toMatchObject({
        type: 'about:blank',
        title: 'Payment Required',
        status: 402,
        detail: expect.stringContaining('this server takes no x402 payments'),
      })
      expect(body).not.toHaveProperty('top_up.upgrade_url')
    }
    expect((await service.runtime.keys.get(keyId))?.balanceMicros).toBe(usd('0.10'))
  })

  it('answers the MCP tool the same way; nothing is debited', async () => {
    const client = new Client({ name: 'short-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'X-API-Key': apiKey } },
      }),
    )
    const result = await client.callTool({ name: 'sanctions_screen', arguments: SCREEN })
    expect(result.isError).toBe(true)
    if (x402) {
      expect(paymentRequiredOf(result)).toMatchObject({
        x402Version: 2,
        errorCode: 'insufficient_balance',
        top_up: topUp(BASE),
      })
    } else {
      expect(paymentRequiredOf(result)).toBeNull()
      expect(problemOf(result)).toMatchObject({
        status: 402,
        errorCode: 'insufficient_balance',
        detail: expect.stringContaining('ask them to credit this key'),
        top_up: topUp(BASE),
      })
    }
    await client.close()
    expect((await service.runtime.keys.get(keyId))?.balanceMicros).toBe(usd('0.10'))
  })
})
