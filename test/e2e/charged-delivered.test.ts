import { connect } from 'node:net'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineOperation } from '../../core/operations/define.ts'
import type { AnyOperation } from '../../core/operations/index.ts'
import { keysUsage } from '../../core/operations/keys-usage.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import { rowsOf } from '../../core/store/database.ts'
import type { Service } from '../../server/compose.ts'
import { DATABASE_KINDS } from '../support/database.ts'
import { waitFor } from '../support/paid-server.ts'
import { createTestService, listen } from '../support/service.ts'

/**
 * A key is charged only for an answer delivered whole: a client that hangs up after the headers
 * of a large answer (REST or MCP over Streamable HTTP) gets its balance back; one that reads the
 * answer is charged once. Over MCP the Idempotency-Key travels in `_meta`.
 */
const PRICE = PRICES.risk_score.account.fresh
const INITIAL = PRICE * 10n
/** Far more than the kernel's socket buffers hold, so the answer cannot be written whole to a client that stops reading. */
const LARGE = 32 * 1024 * 1024

const bulk = defineOperation({
  id: 'paid_bulk',
  http: { method: 'POST', path: '/v1/test/paid-bulk' },
  summary: 'Test operation with an answer of the size asked for',
  input: z
    .object({ size: z.number().int().min(1).max(LARGE).describe('Answer size in characters') })
    .strict(),
  output: z.object({ data: z.string() }),
  price: PRICES.risk_score,
  ports: [],
  access: { sandbox: 'refuse' },
  run: async (input) => ({ data: 'x'.repeat(input.size) }),
})

/** Sends a raw HTTP/1.1 POST and destroys the socket as soon as the response headers arrived. */
function hangUpAfterHeaders(baseUrl: string, path: string, headers: Record<string, string>, body: object) {
  const url = new URL(baseUrl)
  const payload = JSON.stringify(body)
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname)
    let received = ''
    socket.setEncoding('latin1')
    socket.on('error', reject)
    socket.on('connect', () => {
      const lines = [
        `POST ${path} HTTP/1.1`,
        `Host: ${url.host}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(payload)}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ]
      socket.write(`${lines.join('\r\n')}\r\n\r\n${payload}`)
    })
    socket.on('data', (chunk: string) => {
      received += chunk
      const end = received.indexOf('\r\n\r\n')
      if (end < 0) return
      socket.destroy()
      resolve(received.slice(0, end))
    })
  })
}

describe.each(DATABASE_KINDS)('charged = delivered (%s)', (kind) => {
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }

  beforeAll(async () => {
    service = await createTestService(kind, {}, { operations: [bulk, keysUsage] as AnyOperation[] })
    server = await listen(service)
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
  })

  async function newKey(email: string) {
    const { apiKey, record } = await service.runtime.keys.create({ email, tier: 'pro', balance: INITIAL })
    return { apiKey, keyId: record.id }
  }

  async function keyState(keyId: string) {
    const [row] = rowsOf<{ balance: unknown; open: unknown; captured: unknown }>(
      await service.database.db.execute(sql`
        select k.balance_micros as balance,
               (select count(*)::int from key_reservations r where r.key_id = k.id and r.captured_at is null) as open,
               (select count(*)::int from key_reservations r where r.key_id = k.id and r.captured_at is not null) as captured
          from api_keys k where k.id = ${keyId}`),
    )
    return { balance: BigInt(String(row?.balance)), open: Number(row?.open), captured: Number(row?.captured) }
  }

  /** The key's state once no reservation of it is open any more (every call settled). */
  const settled = (keyId: string) =>
    waitFor(async () => {
      const state = await keyState(keyId)
      return state.open === 0 ? state : undefined
    }, 'every reservation of the key to be captured or released')

  /** The key's usage rows (outcome and cost) once they read `expected` (the last is written after delivery). */
  const usageOf = (keyId: string, expected: { outcome: string; cost: string }[]) =>
    waitFor(
      async () => {
        const rows = rowsOf<{ outcome: string; cost: string }>(
          await service.database.db.execute(sql`select outcome, cost_micros::text as cost
          from usage_events where key_id = ${keyId} and operation = 'paid_bulk' order by id`),
        )
        return JSON.stringify(rows) === JSON.stringify(expected) ? rows : undefined
      },
      `the usage rows to read ${JSON.stringify(expected)}`,
    )

  function mcpCall(apiKey: string, args: object, meta?: object) {
    return fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'X-API-Key': apiKey,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'paid_bulk', arguments: args, ...(meta ? { _meta: meta } : {}) },
      }),
    })
  }

  it('REST: a client that hangs up after the headers of a large answer is not charged; one that reads it is', async () => {
    const { apiKey, keyId } = await newKey(`rest-${kind}@example.com`)
    const head = await hangUpAfterHeaders(
      server.baseUrl,
      '/v1/test/paid-bulk',
      { 'X-API-Key': apiKey },
      { size: LARGE },
    )
    expect(head).toMatch(/^HTTP\/1\.1 200/)
    expect(head.toLowerCase()).toContain(`x-charged-amount: ${PRICE}`)
    expect(await settled(keyId)).toEqual({ balance: INITIAL, open: 0, captured: 0 })
    // Its usage row says so: undelivered, not charged (not `ok` with the price).
    await usageOf(keyId, [{ outcome: 'undelivered', cost: '0' }])

    const read = await fetch(`${server.baseUrl}/v1/test/paid-bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-Key': apiKey },
      body: JSON.stringify({ size: LARGE }),
    })
    expect(((await read.json()) as { data: string }).data).toHaveLength(LARGE)
    expect(await settled(keyId)).toEqual({ balance: INITIAL - PRICE, open: 0, captured: 1 })
    await usageOf(keyId, [
      { outcome: 'undelivered', cost: '0' },
      { outcome: 'ok', cost: PRICE.toString() },
    ])
  })

  it('MCP over Streamable HTTP: a tool result whose response was not read whole is not charged', async () => {
    const { apiKey, keyId } = await newKey(`mcp-${kind}@example.com`)
    const head = await hangUpAfterHeaders(
      server.baseUrl,
      '/mcp',
      { 'X-API-Key': apiKey, Accept: 'application/json, text/event-stream' },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'paid_bulk', arguments: { size: LARGE } },
      },
    )
    expect(head).toMatch(/^HTTP\/1\.1 200/)
    expect(await settled(keyId)).toEqual({ balance: INITIAL, open: 0, captured: 0 })
    await usageOf(keyId, [{ outcome: 'undelivered', cost: '0' }])

    const read = await mcpCall(apiKey, { size: LARGE })
    const body = (await read.json()) as { result: { structuredContent: { data: string } } }
    expect(body.result.structuredContent.data).toHaveLength(LARGE)
    expect(await settled(keyId)).toEqual({ balance: INITIAL - PRICE, open: 0, captured: 1 })
    await usageOf(keyId, [
      { outcome: 'undelivered', cost: '0' },
      { outcome: 'ok', cost: PRICE.toString() },
    ])
  })

  it('MCP: _meta.idempotency_key replays the stored result charged nothing; another request with it is a 422 naming the field', async () => {
    const { apiKey, keyId } = await newKey(`mcp-idem-${kind}@example.com`)
    const meta = { idempotency_key: 'order-42' }
    const first = (await (await mcpCall(apiKey, { size: 10 }, meta)).json()) as {
      result: { structuredContent: unknown; _meta?: Record<string, unknown> }
    }
    expect(first.result.structuredContent).toEqual({ data: 'x'.repeat(10) })
    expect(first.result._meta?.idempotent_replayed).toBeUndefined()
    // At once: a retry that overtakes the debit's capture waits for it and is replayed.
    const again = (await (await mcpCall(apiKey, { size: 10 }, meta)).json()) as typeof first
    expect(again.result.structuredContent).toEqual(first.result.structuredContent)
    expect(again.result._meta?.idempotent_replayed).toBe(true)
    expect(await keyState(keyId)).toEqual({ balance: INITIAL - PRICE, open: 0, captured: 1 })

    // REST and MCP share the record: the same request over REST is the same replay.
    const rest = await fetch(`${server.baseUrl}/v1/test/paid-bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-Key': apiKey, 'Idempotency-Key': 'order-42' },
      body: JSON.stringify({ size: 10 }),
    })
    expect(rest.headers.get('idempotent-replayed')).toBe('true')
    expect(await rest.json()).toEqual(first.result.structuredContent)

    const mismatch = (await (await mcpCall(apiKey, { size: 11 }, meta)).json()) as {
      result: { isError: boolean; content: { text: string }[] }
    }
    expect(mismatch.result.isError).toBe(true)
    expect(JSON.parse(mismatch.result.content[0]!.text)).toMatchObject({
      status: 422,
      detail: [{ field: '_meta.idempotency_key', message: 'was already used with a different request' }],
    })
    const malformed = (await (
      await mcpCall(apiKey, { size: 10 }, { idempotency_key: 42 })
    ).json()) as typeof mismatch
    expect(JSON.parse(malformed.result.content[0]!.text)).toMatchObject({
      status: 422,
      detail: [{ field: '_meta.idempotency_key' }],
    })
    expect(await keyState(keyId)).toEqual({ balance: INITIAL - PRICE, open: 0, captured: 1 })
  })
})
