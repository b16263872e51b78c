import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IDEMPOTENCY_TAKEOVER_MS, idempotencyRequestHash } from '../../core/idempotency/index.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import { rowsOf } from '../../core/store/database.ts'
import type { Service } from '../../server/compose.ts'
import { DATABASE_KINDS } from '../support/database.ts'
import { paidRegistry } from '../support/paid-operations.ts'
import { createTestService } from '../support/service.ts'

/**
 * Idempotency-Key on priced calls paid from a key: a retry of the same request is answered from the
 * stored answer and charged nothing; the key is scoped per API key; a failed call leaves no claim.
 */
const PRICE = PRICES.risk_score.account.fresh
const INITIAL = PRICE * 100n

describe.each(DATABASE_KINDS)('Idempotency-Key (%s)', (kind) => {
  let service: Service

  beforeAll(async () => {
    service = await createTestService(kind, {}, { operations: paidRegistry })
  })
  afterAll(async () => {
    await service?.close()
  })

  async function newKey(email: string) {
    const { apiKey, record } = await service.runtime.keys.create({ email, tier: 'pro', balance: INITIAL })
    return { apiKey, keyId: record.id }
  }

  function call(apiKey: string, body: object, idempotencyKey?: string): Promise<Response> {
    return Promise.resolve(
      service.app.request('/v1/test/paid-echo', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'X-API-Key': apiKey,
          ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
        },
        body: JSON.stringify(body),
      }),
    )
  }

  async function balanceOf(keyId: string): Promise<bigint> {
    const [row] = rowsOf<{ balance: unknown }>(
      await service.database.db.execute(
        sql`select balance_micros as balance from api_keys where id = ${keyId}`,
      ),
    )
    return BigInt(String(row?.balance))
  }

  async function claimsOf(keyId: string): Promise<{ idempotency_key: string; state: string }[]> {
    return rowsOf(
      await service.database.db.execute(
        sql`select idempotency_key, state from idempotency_records where key_id = ${keyId} order by idempotency_key`,
      ),
    )
  }

  it('replays the stored answer unchanged with Idempotent-Replayed: true and charges nothing', async () => {
    const { apiKey, keyId } = await newKey('replay@example.com')
    const first = await call(apiKey, { text: 'hello' }, 'order-1')
    expect(first.status).toBe(200)
    expect(first.headers.get('Idempotent-Replayed')).toBeNull()
    expect(first.headers.get('X-Charged-Amount')).toBe(String(PRICE))
    const firstBody = await first.text()
    expect(await balanceOf(keyId)).toBe(INITIAL - PRICE)
    // At once: a retry that overtakes the debit's capture (which follows the answer's last byte)
    // waits for it and is replayed, not refused as still in progress.
    const again = await call(apiKey, { text: 'hello' }, 'order-1')
    expect(again.status).toBe(200)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(again.headers.get('X-Charged-Amount')).toBe('0')
    expect(await again.text()).toBe(firstBody)
    expect(await balanceOf(keyId)).toBe(INITIAL - PRICE)
    expect(await claimsOf(keyId)).toEqual([{ idempotency_key: 'order-1', state: 'done' }])

    // Without the header every call runs and is charged.
    expect((await call(apiKey, { text: 'hello' })).status).toBe(200)
    expect(await balanceOf(keyId)).toBe(INITIAL - 2n * PRICE)
  })

  it('refuses the same Idempotency-Key with a different request with a 422 naming it', async () => {
    const { apiKey, keyId } = await newKey('mismatch@example.com')
    expect((await call(apiKey, { text: 'one' }, 'reused')).status).toBe(200)
    const other = await call(apiKey, { text: 'two' }, 'reused')
    expect(other.status).toBe(422)
    expect(JSON.stringify(await other.json())).toContain('Idempotency-Key')
    expect(await balanceOf(keyId)).toBe(INITIAL - PRICE)
  })

  it('charges concurrent calls with one Idempotency-Key exactly once (one 200, the other 409 or a replay)', async () => {
    const { apiKey, keyId } = await newKey('concurrent@example.com')
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => call(apiKey, { text: 'race', wait_ms: 300 }, 'race-1')),
    )
    const fresh = responses.filter((r) => r.status === 200 && !r.headers.get('Idempotent-Replayed'))
    expect(fresh).toHaveLength(1)
    for (const response of responses.filter((r) => !fresh.includes(r))) {
      if (response.status === 409) {
        expect(Number(response.headers.get('Retry-After'))).toBeGreaterThan(0)
        expect(response.headers.get('content-type')).toContain('application/problem+json')
      } else {
        expect(response.status).toBe(200)
        expect(response.headers.get('Idempotent-Replayed')).toBe('true')
      }
    }
    expect(await balanceOf(keyId)).toBe(INITIAL - PRICE)
    const later = await call(apiKey, { text: 'race', wait_ms: 300 }, 'race-1')
    expect(later.headers.get('Idempotent-Replayed')).toBe('true')
    expect(await balanceOf(keyId)).toBe(INITIAL - PRICE)
  })

  it('treats the same Idempotency-Key of another API key as unrelated: it runs and is charged', async () => {
    const a = await newKey('tenant-a@example.com')
    const b = await newKey('tenant-b@example.com')
    const first = await call(a.apiKey, { text: 'a' }, 'shared-key')
    const second = await call(b.apiKey, { text: 'b' }, 'shared-key')
    expect(second.status).toBe(200)
    expect(second.headers.get('Idempotent-Replayed')).toBeNull()
    expect(((await second.json()) as { payer: string }).payer).toBe(b.keyId)
    expect(((await first.json()) as { payer: string }).payer).toBe(a.keyId)
    expect(await balanceOf(a.keyId)).toBe(INITIAL - PRICE)
    expect(await balanceOf(b.keyId)).toBe(INITIAL - PRICE)
  })

  it('leaves no claim after a failed call (503 source down, 422 body, balance too low): a retry runs', async () => {
    const { apiKey, keyId } = await newKey('failed@example.com')
    expect((await call(apiKey, { text: 'down', fail: true }, 'fails')).status).toBe(503)
    expect((await call(apiKey, { text: 'x'.repeat(101) }, 'invalid')).status).toBe(422)
    expect(await claimsOf(keyId)).toEqual([])
    expect(await balanceOf(keyId)).toBe(INITIAL)
    // The same key and request again: it runs (and fails again, uncharged), not a 409.
    expect((await call(apiKey, { text: 'down', fail: true }, 'fails')).status).toBe(503)

    const poor = await service.runtime.keys.create({ email: 'poor@example.com', tier: 'pro', balance: 1n })
    expect((await call(poor.apiKey, { text: 'no money' }, 'unpaid')).status).toBe(402)
    expect(await claimsOf(poor.record.id)).toEqual([])
  })

  it('refuses a malformed Idempotency-Key with a 422 naming it', async () => {
    const { apiKey, keyId } = await newKey('malformed@example.com')
    for (const bad of ['k'.repeat(256), 'clé']) {
      const response = await call(apiKey, { text: 'x' }, bad)
      expect(response.status).toBe(422)
      expect(JSON.stringify(await response.json())).toContain('Idempotency-Key')
    }
    expect((await call(apiKey, { text: 'x' }, 'k'.repeat(255))).status).toBe(200)
    expect(await balanceOf(keyId)).toBe(INITIAL - PRICE)
  })

  it('answers 409 while a claim is fresh and takes over a claim older than the takeover window', async () => {
    const { apiKey, keyId } = await newKey('takeover@example.com')
    const hash = idempotencyRequestHash('paid_echo', 'fresh', { text: 'crashed' })
    const insert = (key: string, ageMs: number) => {
      const at = new Date(Date.now() - ageMs).toISOString()
      return service.database.db.execute(sql`
        insert into idempotency_records
          (key_id, idempotency_key, operation, request_hash, state, claim_id, created_at, updated_at)
        values (${keyId}, ${key}, 'paid_echo', ${hash}, 'in_progress', 'dead-process',
                ${at}::timestamptz, ${at}::timestamptz)`)
    }
    await insert('fresh-claim', 1_000)
    await insert('stale-claim', IDEMPOTENCY_TAKEOVER_MS + 10_000)

    const busy = await call(apiKey, { text: 'crashed' }, 'fresh-claim')
    expect(busy.status).toBe(409)
    expect(busy.headers.get('Retry-After')).toMatch(/^[1-9][0-9]*$/)
    expect(await balanceOf(keyId)).toBe(INITIAL)

    const taken = await call(apiKey, { text: 'crashed' }, 'stale-claim')
    expect(taken.status).toBe(200)
    expect(taken.headers.get('Idempotent-Replayed')).toBeNull()
    expect(await balanceOf(keyId)).toBe(INITIAL - PRICE)
    expect(await claimsOf(keyId)).toEqual([
      { idempotency_key: 'fresh-claim', state: 'in_progress' },
      { idempotency_key: 'stale-claim', state: 'done' },
    ])
  })
})
