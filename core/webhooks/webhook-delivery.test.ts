import { randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import {
  type FakeWebhookReceiver,
  startFakeWebhookReceiver,
} from '../../test/support/fakes/fake-webhook-receiver.ts'
import { createManualClock, type ManualClock } from '../../test/support/fakes/manual-clock.ts'
import type { Database } from '../store/database.ts'
import { deliverOnce } from './deliver.ts'
import { createDeliveryWorker, type Send } from './delivery-worker.ts'
import { backoffMs, WEBHOOK_LIMITS } from './events.ts'
import { createSecretBox } from './secret-box.ts'
import { envelopeBody, signBody, verifySignature } from './signing.ts'
import { createWebhookStore, type WebhookStore } from './webhook-store.ts'

const HEADER = 'X-Service-Signature'
const failing: Send = async () => ({ delivered: false, status_code: 500, duration_ms: 3, error: 'HTTP 500' })
const succeeding: Send = async () => ({ delivered: true, status_code: 204, duration_ms: 2, error: null })

describe('signing and secrets', () => {
  it('signs the raw body with bare hex HMAC-SHA256 and verifies in constant time', () => {
    const body = envelopeBody({
      event: 'sanctions.match.new',
      event_id: 'e1',
      created_at: 't',
      data: { b: 1, a: 2 },
    })
    expect(body).toBe('{"created_at":"t","data":{"a":2,"b":1},"event":"sanctions.match.new","event_id":"e1"}')
    const signature = signBody('whsec_x', body)
    expect(signature).toMatch(/^[0-9a-f]{64}$/)
    expect(verifySignature('whsec_x', body, signature)).toBe(true)
    expect(verifySignature('whsec_y', body, signature)).toBe(false)
    expect(verifySignature('whsec_x', `${body} `, signature)).toBe(false)
    expect(verifySignature('whsec_x', body, `sha256=${signature}`)).toBe(false)
    expect(verifySignature('whsec_x', body, null)).toBe(false)
  })

  it('seals secrets with AES-256-GCM and opens them after a key rotation', () => {
    const oldKey = randomBytes(32)
    const newKey = randomBytes(32)
    const before = createSecretBox([oldKey])
    const sealed = before.seal('whsec_secret')
    expect(Buffer.from(sealed.sealed).toString('utf8')).not.toContain('whsec_secret')
    const rotated = createSecretBox([newKey, oldKey])
    expect(rotated.open(sealed.keyId, sealed.sealed)).toBe('whsec_secret')
    expect(rotated.seal('x').keyId).toBe(rotated.currentKeyId)
    const tampered = Buffer.from(sealed.sealed)
    tampered[tampered.length - 1]! ^= 1
    expect(() => rotated.open(sealed.keyId, tampered)).toThrow()
  })

  it('backs off 30 s doubling with up to 20% jitter', () => {
    expect([2, 3, 4, 5, 6].map((attempt) => backoffMs(attempt, () => 0))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000,
    ])
    expect(backoffMs(2, () => 0.999)).toBeLessThanOrEqual(36_000)
  })
})

describe('one delivery attempt over plain http to loopback (development setting)', () => {
  const received: { headers: IncomingHttpHeaders; body: string }[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(204).end()
    })
  })
  let port = 0
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise((resolve) => server.close(resolve)))

  it('delivers signed to http://127.0.0.1 and http://localhost with the setting, and refuses without it', async () => {
    const body = '{"event":"webhook.test","event_id":"e-http"}'
    const headers = { [HEADER]: signBody('whsec_dev', body) }
    for (const url of [`http://127.0.0.1:${port}/hooks`, `http://localhost:${port}/hooks`]) {
      expect(await deliverOnce(url, body, headers, { allowHttpLoopback: true }), url).toMatchObject({
        delivered: true,
        status_code: 204,
        error: null,
      })
      const last = received.at(-1)!
      expect(last.body).toBe(body)
      expect(verifySignature('whsec_dev', last.body, last.headers['x-service-signature'] as string)).toBe(
        true,
      )
    }
    const count = received.length
    // A webhook registered under the setting: once the service runs without it, every attempt is refused.
    expect(await deliverOnce(`http://127.0.0.1:${port}/hooks`, body, headers)).toMatchObject({
      delivered: false,
      status_code: null,
      error: 'refused: URL must use HTTPS',
    })
    expect(received.length).toBe(count)
  })
})

describe('one delivery attempt over HTTPS (pinned, TLS verified, no redirects)', () => {
  let receiver: FakeWebhookReceiver
  beforeAll(async () => {
    receiver = await startFakeWebhookReceiver()
  })
  afterAll(() => receiver.close())
  const override = () => ({
    testReceivers: { ca: receiver.ca, hosts: { 'hooks.example.test': '127.0.0.1' } },
  })

  it('delivers to the checked address with the signature and counts 2xx as delivered', async () => {
    receiver.respond(() => 202)
    const body = '{"event":"x","event_id":"e-1"}'
    const result = await deliverOnce(receiver.url, body, { [HEADER]: signBody('s', body) }, override())
    expect(result).toMatchObject({ delivered: true, status_code: 202, error: null })
    const last = receiver.received.at(-1)!
    expect(last.body).toBe(body)
    expect(verifySignature('s', last.body, last.signature)).toBe(true)
  })

  it('does not follow a redirect, and fails on 5xx and on a timeout', async () => {
    receiver.respond(() => ({ redirect: 'https://hooks.example.test/elsewhere' }))
    expect(await deliverOnce(receiver.url, '{}', {}, override())).toMatchObject({
      delivered: false,
      status_code: 302,
      error: 'redirect 302 not followed',
    })
    receiver.respond(() => 503)
    expect(await deliverOnce(receiver.url, '{}', {}, override())).toMatchObject({
      delivered: false,
      status_code: 503,
    })
    receiver.respond(() => 'hang')
    const timedOut = await deliverOnce(receiver.url, '{}', {}, { ...override(), timeoutMs: 300 })
    expect(timedOut).toMatchObject({ delivered: false, status_code: null })
    expect(timedOut.error).toContain('timeout')
  })

  it('fails every delivery to an expired or self-signed certificate, and without the override', async () => {
    for (const certificate of ['expired', 'self_signed'] as const) {
      const bad = await startFakeWebhookReceiver({ certificate })
      const result = await deliverOnce(
        bad.url,
        '{}',
        {},
        {
          testReceivers: { ca: receiver.ca, hosts: { 'hooks.example.test': '127.0.0.1' } },
        },
      )
      expect(result.delivered, certificate).toBe(false)
      expect(result.status_code).toBeNull()
      expect(bad.received).toHaveLength(0)
      await bad.close()
    }
    const refused = await deliverOnce(receiver.url, '{}', {})
    expect(refused.delivered).toBe(false)
    expect(refused.error).toMatch(/^refused: /)
  })
})

describe.each(DATABASE_KINDS)('webhook delivery queue on %s', (kind) => {
  let database: Database
  let clock: ManualClock
  let store: WebhookStore

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    clock = createManualClock('2026-03-01T08:00:00.000Z')
    store = createWebhookStore({
      db: database.db,
      box: createSecretBox([randomBytes(32)]),
      clock,
      random: () => 0,
    })
  })
  afterAll(async () => {
    await database?.close()
  })

  it('keeps the secret encrypted, lists only the key own active webhooks, and deletes with history', async () => {
    const { view, secret } = await store.create('key-a', 'https://a.example.com/h', [
      'sanctions.match.new',
      'certificate.expired',
    ])
    expect(secret).toMatch(/^whsec_/)
    expect(view.delivered_events).toEqual(['sanctions.match.new'])
    expect(await store.list('key-b')).toEqual({ webhooks: [], next_cursor: null })
    expect((await store.list('key-a')).webhooks.map((hook) => hook.webhook_id)).toContain(view.webhook_id)
    expect(JSON.stringify(await store.list('key-a'))).not.toContain(secret)
    expect((await store.get('key-a', view.webhook_id))?.secret).toBe(secret)
    expect(await store.get('key-b', view.webhook_id)).toBeNull()
    expect(await store.remove('key-b', view.webhook_id)).toBe(false)
    expect(await store.remove('key-a', view.webhook_id)).toBe(true)
    expect(await store.remove('key-a', view.webhook_id)).toBe(false)
  })

  it('retries with backoff, fails after the 6th attempt and records every attempt', async () => {
    const { view } = await store.create('key-r', 'https://r.example.com/h', ['sanctions.match.new'])
    await database.db.transaction((tx) =>
      store.enqueue(tx, 'key-r', 'sanctions.match.new', 'evt-r1', { n: 1 }, clock.now()),
    )
    const worker = createDeliveryWorker({ store, signatureHeader: HEADER, send: failing, instanceId: 'w1' })
    for (let attempt = 1; attempt <= WEBHOOK_LIMITS.maxAttempts; attempt++) {
      expect(await worker.runOnce(), `attempt ${attempt}`).toBe(1)
      expect(await worker.runOnce(), 'not due before its backoff').toBe(0)
      if (attempt < WEBHOOK_LIMITS.maxAttempts) clock.advance(backoffMs(attempt + 1, () => 0))
    }
    const page = await store.deliveries('key-r', view.webhook_id, { limit: 10, offset: 0 })
    expect(page?.deliveries[0]).toMatchObject({ status: 'failed', attempts: 6, last_status_code: 500 })
    expect(page?.deliveries[0]?.attempt_log.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6])
    clock.advance(3_600_000)
    expect(await worker.runOnce()).toBe(0)
    expect(await store.deliveries('key-other', view.webhook_id, { limit: 10, offset: 0 })).toBeNull()
  })

  it('deactivates a webhook after 10 events that each failed all attempts, and a success resets the count', async () => {
    const { view } = await store.create('key-d', 'https://d.example.com/h', ['sanctions.match.new'])
    const worker = createDeliveryWorker({ store, signatureHeader: HEADER, send: failing, instanceId: 'w2' })
    const good = createDeliveryWorker({ store, signatureHeader: HEADER, send: succeeding, instanceId: 'w3' })
    const failEvent = async (id: string, runner = worker) => {
      await store.enqueue(database.db, 'key-d', 'sanctions.match.new', id, {}, clock.now())
      for (let attempt = 1; attempt <= 6; attempt++) {
        await runner.runOnce()
        clock.advance(600_000)
      }
    }
    for (let n = 0; n < 9; n++) await failEvent(`evt-d${n}`)
    await failEvent('evt-ok', good)
    for (let n = 10; n < 19; n++) await failEvent(`evt-d${n}`)
    expect((await store.list('key-d')).webhooks.map((hook) => hook.webhook_id)).toContain(view.webhook_id)
    await store.enqueue(database.db, 'key-d', 'sanctions.match.new', 'evt-last', {}, clock.now())
    await store.enqueue(
      database.db,
      'key-d',
      'sanctions.match.new',
      'evt-queued',
      {},
      new Date(clock.now().getTime() + 1e9),
    )
    for (let attempt = 1; attempt <= 6; attempt++) {
      await worker.runOnce()
      clock.advance(600_000)
    }
    expect(await store.list('key-d')).toEqual({ webhooks: [], next_cursor: null })
    const counts = await store.counts()
    expect(counts.dropped).toBeGreaterThanOrEqual(1)
  })

  it('caps webhooks per key exactly under 50 concurrent registrations, and pages the list by cursor', async () => {
    const capped = createWebhookStore({
      db: database.db,
      box: createSecretBox([randomBytes(32)]),
      clock,
      cap: 20,
    })
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, n) =>
        capped.create('key-cap', `https://cap.example.com/${n}`, ['sanctions.match.new']),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(20)
    const refusals = outcomes.filter((outcome) => outcome.status === 'rejected')
    expect(refusals).toHaveLength(30)
    for (const refusal of refusals) {
      expect((refusal as PromiseRejectedResult).reason).toMatchObject({
        code: 'validation_failed',
        fields: [{ field: 'url', message: 'a key may register at most 20 webhooks; delete some first' }],
      })
    }
    // Another key is not affected by this key's cap.
    await capped.create('key-cap-other', 'https://cap.example.com/other', ['sanctions.match.new'])
    const all = await capped.list('key-cap')
    expect(all.webhooks).toHaveLength(20)
    expect(all.next_cursor).toBeNull()
    // Same created_at for all (manual clock): the id breaks ties, so pages never skip or repeat.
    const paged: string[] = []
    let cursor: string | undefined
    const sizes: number[] = []
    do {
      const page = await capped.list('key-cap', { limit: 7, ...(cursor ? { cursor } : {}) })
      sizes.push(page.webhooks.length)
      paged.push(...page.webhooks.map((hook) => hook.webhook_id))
      cursor = page.next_cursor ?? undefined
    } while (cursor)
    expect(sizes).toEqual([7, 7, 6])
    expect(paged).toEqual(all.webhooks.map((hook) => hook.webhook_id))
    // A deleted one frees a slot.
    expect(await capped.remove('key-cap', paged[0]!)).toBe(true)
    await capped.create('key-cap', 'https://cap.example.com/again', ['sanctions.match.new'])
    await expect(
      capped.create('key-cap', 'https://cap.example.com/over', ['sanctions.match.new']),
    ).rejects.toMatchObject({
      code: 'validation_failed',
    })
    for (const bad of ['nonsense', Buffer.from('[1,2]').toString('base64url'), '']) {
      await expect(capped.list('key-cap', { limit: 5, cursor: bad }), bad).rejects.toMatchObject({
        code: 'validation_failed',
        fields: [{ field: 'cursor' }],
      })
    }
  })

  it('lets two workers share the queue without sending one delivery twice', async () => {
    await store.create('key-s', 'https://s.example.com/h', ['sanctions.match.new'])
    for (let n = 0; n < 60; n++) {
      await store.enqueue(database.db, 'key-s', 'sanctions.match.new', `evt-s${n}`, { n }, clock.now())
    }
    const sent: string[] = []
    const recording: Send = async (_url, body) => {
      sent.push(JSON.parse(body).event_id)
      await new Promise((resolve) => setTimeout(resolve, 5))
      return { delivered: true, status_code: 200, duration_ms: 5, error: null }
    }
    const a = createDeliveryWorker({
      store,
      signatureHeader: HEADER,
      send: recording,
      instanceId: 'a',
      concurrency: 7,
    })
    const b = createDeliveryWorker({
      store,
      signatureHeader: HEADER,
      send: recording,
      instanceId: 'b',
      concurrency: 7,
    })
    for (;;) {
      const [x, y] = await Promise.all([a.runOnce(), b.runOnce()])
      if (x + y === 0) break
    }
    const ids = sent.filter((id) => id.startsWith('evt-s'))
    expect(ids).toHaveLength(60)
    expect(new Set(ids).size).toBe(60)
  })
})
