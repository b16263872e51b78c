import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase, testPostgresUrl } from '../../test/support/database.ts'
import { ServiceError } from '../errors.ts'
import { MAX_BALANCE_MICROS } from '../money.ts'
import { createDatabase, type Database } from '../store/database.ts'
import {
  type ApiKeyService,
  createApiKeyService,
  hashKey,
  KEY_CACHE_MS,
  keyChangeListenerCount,
} from './api-keys.ts'
import { keyUsageView } from './key-views.ts'

const ADMIN = 'operator-key-0123456789abcdef'

describe.each(DATABASE_KINDS)('API keys on %s', (kind) => {
  let database: Database
  let keys: ApiKeyService
  let now = new Date('2026-11-21T12:00:00Z')

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    keys = createApiKeyService({ db: database.db, clock: { now: () => now }, adminKey: ADMIN })
  })
  afterAll(async () => {
    await database?.close()
  })

  async function expectUnauthorized(presented: string, message: string) {
    const error = await keys.authenticate(presented).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServiceError)
    expect((error as ServiceError).code).toBe('unauthorized')
    expect((error as ServiceError).message).toBe(message)
  }

  it('prefixes keys by mode and stores only their hash', async () => {
    const live = await keys.create({ email: 'a@example.com', tier: 'free' })
    const sandbox = await keys.create({ email: 'b@example.com', tier: 'sandbox' })
    expect(live.apiKey).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/)
    expect(sandbox.apiKey).toMatch(/^svc_sandbox_[A-Za-z0-9_-]{43}$/)
    const dump = JSON.stringify(
      (await database.db.execute(sql`select * from api_keys`)) as unknown,
      (_key, value) => (typeof value === 'bigint' ? value.toString() : value),
    )
    expect(dump).not.toContain(live.apiKey)
    expect(dump).not.toContain(sandbox.apiKey)
    expect(dump).toContain(hashKey(live.apiKey))
  })

  it('authenticates a live key as a least-privileged customer', async () => {
    const created = await keys.create({ email: 'c@example.com', tier: 'free' })
    expect(await keys.authenticate(created.apiKey)).toEqual({
      kind: 'key',
      keyId: created.record.id,
      tier: 'free',
      mode: 'live',
      role: 'customer',
    })
  })

  it('treats a missing key as anonymous and the operator key as admin', async () => {
    expect(await keys.authenticate(undefined)).toEqual({ kind: 'anonymous' })
    expect(await keys.authenticate(ADMIN)).toMatchObject({ kind: 'key', role: 'admin' })
  })

  it('refuses unknown, malformed, test, revoked and expired keys', async () => {
    await expectUnauthorized(`svc_live_${'x'.repeat(43)}`, 'invalid API key')
    await expectUnauthorized('not-a-key', 'invalid API key')
    await expectUnauthorized(`svc_test_${'x'.repeat(43)}`, 'test keys not accepted in production')
    const revoked = await keys.create({ email: 'd@example.com', tier: 'free' })
    await keys.revoke(revoked.record.id)
    await expectUnauthorized(revoked.apiKey, 'API key revoked')
    const expiring = await keys.create({ email: 'e@example.com', tier: 'free' })
    await database.db.execute(
      sql`update api_keys set expires_at = ${new Date(now.getTime() + 1000).toISOString()} where id = ${expiring.record.id}`,
    )
    expect(await keys.authenticate(expiring.apiKey)).toMatchObject({ kind: 'key' })
    now = new Date(now.getTime() + 2000)
    await expectUnauthorized(expiring.apiKey, 'API key expired')
  })
})

describe('key change listeners', () => {
  it('are removed when a service closes: creating and closing 25 services leaves the count unchanged', async () => {
    const database = await openTestDatabase('pglite')
    try {
      const clock = { now: () => new Date() }
      const before = keyChangeListenerCount()
      const open = Array.from({ length: 25 }, () => createApiKeyService({ db: database.db, clock }))
      // Each open service listens (so the count measures something), until it is closed.
      expect(keyChangeListenerCount()).toBe(before + 25)
      for (const service of open) service.close()
      expect(keyChangeListenerCount()).toBe(before)
      open[0]!.close()
      expect(keyChangeListenerCount()).toBe(before)
      // A service without a cache never listened.
      createApiKeyService({ db: database.db, clock, cacheMs: 0 }).close()
      expect(keyChangeListenerCount()).toBe(before)
    } finally {
      await database.close()
    }
  })
})

describe('the maximum balance', () => {
  it('refuses a credit above one billion USD with 422 naming amount_usd, and keeps balances exact in JSON', async () => {
    const database = await openTestDatabase('pglite')
    try {
      const keys = createApiKeyService({ db: database.db, clock: { now: () => new Date() } })
      const { record } = await keys.create({
        email: 'm@example.com',
        tier: 'pro',
        balance: MAX_BALANCE_MICROS - 1n,
      })
      expect(Number.isSafeInteger(Number(MAX_BALANCE_MICROS))).toBe(true)
      const error = await keys.credit(record.id, 2n).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ServiceError)
      expect((error as ServiceError).code).toBe('validation_failed')
      expect((error as ServiceError).fields?.[0]?.field).toBe('amount_usd')
      expect((await keys.credit(record.id, 1n)).balanceMicros).toBe(MAX_BALANCE_MICROS)
      expect(keyUsageView((await keys.get(record.id))!).balance_micros).toBe(1_000_000_000_000_000)
      expect((await keys.credit(record.id, 1n).catch((e: unknown) => e)) as ServiceError).toBeInstanceOf(
        ServiceError,
      )
    } finally {
      await database.close()
    }
  })
})

describe('a key changed by another process (PostgreSQL, a second pool writing by hand)', () => {
  /**
   * Calls `authenticate` until it gives what `done` waits for, noting when each call began. A
   * call that began KEY_CACHE_MS after the change committed must see it; one before may not.
   */
  async function pollUntil(
    keys: ApiKeyService,
    apiKey: string,
    changedAt: number,
    done: (caller: unknown) => boolean,
  ) {
    for (;;) {
      const began = performance.now()
      const seen = await keys.authenticate(apiKey).catch((error: unknown) => error)
      if (done(seen)) return
      expect(began - changedAt, 'a call begun after the bound still saw the old record').toBeLessThan(
        KEY_CACHE_MS,
      )
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  it(`sees a revocation and a tier change within ${KEY_CACHE_MS} ms (calls begun after that bound never see the old record)`, async () => {
    const url = await testPostgresUrl()
    const here = await createDatabase({ url })
    const elsewhere = await createDatabase({ url })
    try {
      const keys = createApiKeyService({ db: here.db, clock: { now: () => new Date() } })
      const { apiKey, record } = await keys.create({ email: 'x@example.com', tier: 'free' })
      expect(await keys.authenticate(apiKey)).toMatchObject({ tier: 'free' })

      await elsewhere.db.execute(sql`update api_keys set tier = 'pro' where id = ${record.id}`)
      const upgradedAt = performance.now()
      await pollUntil(keys, apiKey, upgradedAt, (caller) => (caller as { tier?: string }).tier === 'pro')

      await elsewhere.db.execute(sql`update api_keys set status = 'revoked' where id = ${record.id}`)
      const revokedAt = performance.now()
      await pollUntil(
        keys,
        apiKey,
        revokedAt,
        (seen) => seen instanceof ServiceError && seen.message === 'API key revoked',
      )
    } finally {
      await here.close()
      await elsewhere.close()
    }
  })
})
