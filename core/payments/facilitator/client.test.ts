import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { usd } from '../../money.ts'
import { createCircuitBreaker } from '../../sources/circuit-breaker.ts'
import { exactEvmScheme } from '../evm/scheme.ts'
import { createMemoryNonceStore } from '../ledger/nonce-store.ts'
import { createPaymentConfig, SOLANA_DEVNET } from '../networks.ts'
import { buildPaymentRequirements, type PaymentRequirement } from '../requirements.ts'
import type { Settler } from '../settle-result.ts'
import { facilitatedSvmScheme } from '../svm/scheme.ts'
import { createPaymentVerifier } from '../verify-payment.ts'
import { toCanonicalPayload, toStandardRequirement, type VerifiedPayment } from '../verify-result.ts'
import {
  createFacilitatorClient,
  createFacilitatorSettler,
  createFallbackSettler,
  mapFacilitatorReason,
} from './client.ts'

type Handler = (body: Record<string, unknown>, res: ServerResponse) => void
const SOLANA_PAYER = '7Np41oeYqPefeNQEHSv1UDhYrehxin3NStELsSKCT4K2'

let server: Server
let url: string
let handler: Handler
let received: { path: string; body: Record<string, unknown> }[]
const pending = new Set<ServerResponse>()

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = ''
    req.on('data', (chunk) => {
      raw += chunk
    })
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>
      received.push({ path: req.url ?? '', body })
      pending.add(res)
      res.on('close', () => pending.delete(res))
      handler(body, res)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/facilitator`
})
afterAll(() => {
  for (const res of pending) res.destroy()
  server.close()
})
beforeEach(() => {
  received = []
  handler = (_body, res) => json(res, 200, { isValid: true, payer: SOLANA_PAYER })
})

const config = createPaymentConfig({
  networks: [SOLANA_DEVNET],
  solanaPayTo: 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5',
  overrides: { [SOLANA_DEVNET]: { feePayer: '2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4' } },
})
const requirements = buildPaymentRequirements(config, {
  amount: usd('0.005'),
  resourceUrl: 'https://api.test/v1/sanctions/screen',
  description: 'sanctions screen',
})
const requirement = requirements[0] as PaymentRequirement
const payload = toCanonicalPayload(requirement, { transaction: 'AQID' })
const standard = toStandardRequirement(requirement)

function manualClock(start = Date.parse('2030-01-01T00:00:00Z')) {
  let now = start
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) }
}

describe('createFacilitatorClient', () => {
  it('posts { x402Version, paymentPayload, paymentRequirements } to {url}/verify and reads the answer', async () => {
    const client = createFacilitatorClient({ url })
    expect(await client.verify(payload, standard)).toEqual({ isValid: true, payer: SOLANA_PAYER })
    expect(received).toEqual([
      {
        path: '/facilitator/verify',
        body: { x402Version: 2, paymentPayload: payload, paymentRequirements: standard },
      },
    ])
  })

  it('maps an official refusal reason to our error code', async () => {
    handler = (_b, res) =>
      json(res, 400, { isValid: false, invalidReason: 'invalid_exact_evm_payload_signature' })
    expect(await createFacilitatorClient({ url }).verify(payload, standard)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_signature',
    })
  })

  it('settles through {url}/settle and returns transaction, network and payer', async () => {
    handler = (_b, res) =>
      json(res, 200, { success: true, transaction: '5sig', network: SOLANA_DEVNET, payer: SOLANA_PAYER })
    expect(await createFacilitatorClient({ url }).settle(payload, standard)).toMatchObject({
      success: true,
      transaction: '5sig',
      network: SOLANA_DEVNET,
      payer: SOLANA_PAYER,
      amount: '5000',
    })
    expect(received[0]?.path).toBe('/facilitator/settle')
  })

  it('reports a settle refusal as data, not retryable', async () => {
    handler = (_b, res) =>
      json(res, 200, {
        success: false,
        errorReason: 'insufficient_funds',
        transaction: '',
        network: SOLANA_DEVNET,
      })
    expect(await createFacilitatorClient({ url }).settle(payload, standard)).toMatchObject({
      success: false,
      errorReason: 'insufficient_funds',
      retryable: false,
    })
  })

  it('treats a facilitator that is down as facilitator_unavailable (retryable for settle)', async () => {
    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
    closed.close()
    await once(closed, 'close')
    const client = createFacilitatorClient({ url: downUrl })
    expect(await client.verify(payload, standard)).toMatchObject({
      isValid: false,
      invalidReason: 'facilitator_unavailable',
    })
    // Connection refused: the facilitator never got the request, so nothing can settle later.
    expect(await client.settle(payload, standard)).toMatchObject({
      success: false,
      errorReason: 'facilitator_unavailable',
      retryable: true,
      submitted: false,
    })
  })

  it('counts a settle that timed out or got a 5xx as possibly sent, and a 429 as not sent', async () => {
    handler = (_b, res) => {
      const timer = setTimeout(() => json(res, 200, { success: true }), 3_000)
      res.on('close', () => clearTimeout(timer))
    }
    expect(
      await createFacilitatorClient({ url, settleTimeoutMs: 100 }).settle(payload, standard),
    ).toMatchObject({
      errorReason: 'facilitator_unavailable',
      submitted: true,
    })
    handler = (_b, res) => json(res, 502, { error: 'bad gateway' })
    expect(await createFacilitatorClient({ url }).settle(payload, standard)).toMatchObject({
      submitted: true,
    })
    handler = (_b, res) => json(res, 429, { error: 'slow down' })
    expect(await createFacilitatorClient({ url }).settle(payload, standard)).toMatchObject({
      submitted: false,
    })
  })

  it('gives up on a slow facilitator after the timeout', async () => {
    handler = (_b, res) => {
      const timer = setTimeout(() => json(res, 200, { isValid: true, payer: SOLANA_PAYER }), 3_000)
      res.on('close', () => clearTimeout(timer))
    }
    const result = await createFacilitatorClient({ url, timeoutMs: 100 }).verify(payload, standard)
    expect(result).toMatchObject({ isValid: false, invalidReason: 'facilitator_unavailable' })
    if (!result.isValid) expect(result.invalidMessage).toMatch(/timed out/)
  })

  it('treats 5xx, 429 and non-JSON answers as unavailable, a malformed 4xx as a refusal', async () => {
    const client = createFacilitatorClient({ url })
    for (const [status, body] of [
      [500, { error: 'boom' }],
      [429, { error: 'slow down' }],
      [200, '<html>'],
      [200, { unexpected: true }],
    ] as const) {
      handler = (_b, res) => json(res, status, body)
      expect(await client.verify(payload, standard), `${status}`).toMatchObject({
        invalidReason: 'facilitator_unavailable',
      })
    }
    handler = (_b, res) => json(res, 400, { error: 'bad request' })
    expect(await client.verify(payload, standard)).toMatchObject({ invalidReason: 'facilitator_rejected' })
  })

  it('opens the circuit after repeated failures, stops calling, then lets one trial through', async () => {
    const clock = manualClock()
    const breaker = createCircuitBreaker({ clock, failureThreshold: 2, coolDownMs: 10_000 })
    const client = createFacilitatorClient({ url, breaker })
    handler = (_b, res) => json(res, 503, { error: 'down' })
    await client.verify(payload, standard)
    await client.verify(payload, standard)
    expect(breaker.state()).toBe('open')
    const calls = received.length
    expect(await client.verify(payload, standard)).toMatchObject({ invalidReason: 'facilitator_unavailable' })
    expect(received.length).toBe(calls)

    clock.advance(10_000)
    handler = (_b, res) => json(res, 200, { isValid: true, payer: SOLANA_PAYER })
    expect(await client.verify(payload, standard)).toMatchObject({ isValid: true })
    expect(received.length).toBe(calls + 1)
    expect(breaker.state()).toBe('closed')
  })
})

describe('mapFacilitatorReason', () => {
  it('passes our own codes through and marks unknown reasons facilitator_rejected', () => {
    expect(mapFacilitatorReason('nonce_replay')).toBe('nonce_replay')
    expect(mapFacilitatorReason('duplicate_settlement')).toBe('nonce_replay')
    expect(mapFacilitatorReason('something_new')).toBe('facilitator_rejected')
    expect(mapFacilitatorReason(undefined)).toBe('facilitator_rejected')
  })
})

describe('Solana through the facilitator', () => {
  const solanaPayment = { x402Version: 2, accepted: standard, payload: { transaction: 'AQIDBA==' } }

  it('verifies via the facilitator and claims the transaction so it cannot pay twice', async () => {
    const nonceStore = createMemoryNonceStore({ clock: manualClock() })
    const facilitator = createFacilitatorClient({ url })
    const verifier = createPaymentVerifier({
      clock: manualClock(),
      schemes: {
        evm: exactEvmScheme({ config, nonceStore }),
        solana: facilitatedSvmScheme({ config, nonceStore, facilitator }),
      },
    })
    const first = await verifier.verify({ payload: solanaPayment }, requirements)
    expect(first).toMatchObject({ isValid: true, kind: 'solana', payer: SOLANA_PAYER, amount: 5_000n })
    expect(await verifier.verify({ payload: solanaPayment }, requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'nonce_replay',
    })
  })

  it('refuses Solana when no facilitator is configured', async () => {
    const nonceStore = createMemoryNonceStore({ clock: manualClock() })
    const verifier = createPaymentVerifier({
      clock: manualClock(),
      schemes: { evm: exactEvmScheme({ config, nonceStore }) },
    })
    expect(await verifier.verify({ payload: solanaPayment }, requirements)).toMatchObject({
      invalidReason: 'unsupported_network',
    })
  })
})

describe('createFallbackSettler', () => {
  const evmPayment = {
    kind: 'evm',
    network: 'eip155:84532',
    payer: '0xabc',
    paymentPayload: payload,
    paymentRequirements: standard,
  } as unknown as VerifiedPayment
  const okSettler: Settler = {
    settle: async (p) => ({ success: true, network: p.network, payer: p.payer, transaction: '0xfeed' }),
  }

  it('settles on chain and marks fallback when the facilitator is unavailable', async () => {
    handler = (_b, res) => json(res, 502, 'bad gateway')
    const settler = createFallbackSettler({
      primary: createFacilitatorSettler(createFacilitatorClient({ url })),
      fallback: okSettler,
    })
    expect(await settler.settle(evmPayment)).toMatchObject({
      success: true,
      transaction: '0xfeed',
      fallback: true,
    })
  })

  it('does not fall back when the facilitator refused the payment', async () => {
    handler = (_b, res) =>
      json(res, 200, { success: false, errorReason: 'insufficient_funds', network: 'eip155:84532' })
    const settler = createFallbackSettler({
      primary: createFacilitatorSettler(createFacilitatorClient({ url })),
      fallback: okSettler,
    })
    const result = await settler.settle(evmPayment)
    expect(result).toMatchObject({ success: false, errorReason: 'insufficient_funds' })
    expect(result.fallback).toBeUndefined()
  })
})
