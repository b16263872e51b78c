import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../../test/support/database.ts'
import type { Database } from '../../store/database.ts'
import { paymentNonces } from '../../store/schema.ts'
import { createDbNonceStore } from './nonce-table.ts'

describe.each(DATABASE_KINDS)('database nonce store on %s', (kind) => {
  let database: Database
  let now = new Date('2026-11-21T12:00:00Z')
  const clock = { now: () => now }
  const inFiveMinutes = () => new Date(now.getTime() + 300_000)

  beforeAll(async () => {
    database = await openTestDatabase(kind)
  })
  afterAll(async () => {
    await database?.close()
  })

  it('lets exactly one of 50 concurrent claims of one nonce through', async () => {
    const store = createDbNonceStore(database.db, clock)
    const claims = await Promise.all(
      Array.from({ length: 50 }, () =>
        store.claim('eip155:8453', `0x${'ab'.repeat(32)}`, '0xPAYER', inFiveMinutes()),
      ),
    )
    expect(claims.filter(Boolean)).toHaveLength(1)
  })

  it('lets exactly one of 200 concurrent claims of one nonce through, from two stores on one database', async () => {
    const stores = [createDbNonceStore(database.db, clock), createDbNonceStore(database.db, clock)]
    const nonce = `0x${'a1'.repeat(32)}`
    const claims = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        stores[index % 2]!.claim(
          'eip155:8453',
          index % 3 === 0 ? nonce.toUpperCase().replace('0X', '0x') : nonce,
          '0xPAYER',
          inFiveMinutes(),
        ),
      ),
    )
    expect(claims.filter(Boolean)).toHaveLength(1)
  })

  it('answers each claim of a mixed batch: fresh, replayed, expired window, duplicated in the batch', async () => {
    const store = createDbNonceStore(database.db, clock)
    const nonce = (byte: string) => `0x${byte.repeat(32)}`
    // Earlier claims: one still in its window, one whose window passes before the batch.
    expect(await store.claim('eip155:8453', nonce('b1'), '0xabc', inFiveMinutes())).toBe(true)
    expect(await store.claim('eip155:8453', nonce('b2'), '0xabc', new Date(now.getTime() + 1_000))).toBe(true)
    now = new Date(now.getTime() + 1_000)
    const batch = await Promise.all([
      store.claim('eip155:8453', nonce('b3'), '0xabc', inFiveMinutes()), // fresh
      store.claim('eip155:8453', nonce('b1'), '0xabc', inFiveMinutes()), // replayed within its window
      store.claim('eip155:8453', nonce('b2'), '0xabc', inFiveMinutes()), // its window has passed: taken over
      store.claim('eip155:8453', nonce('b3'), '0xABC', inFiveMinutes()), // the fresh one again in the batch
      store.claim('eip155:8453', nonce('b2'), '0xabc', inFiveMinutes()), // the taken-over one again
      store.claim('eip155:84532', nonce('b1'), '0xabc', inFiveMinutes()), // another network: fresh
    ])
    expect(batch).toEqual([true, false, true, false, false, true])
    expect(await store.claim('eip155:8453', nonce('b3'), '0xabc', inFiveMinutes())).toBe(false)
  })

  it('rejects a nonce seen within 5 minutes, whatever the letter case', async () => {
    const store = createDbNonceStore(database.db, clock)
    const nonce = `0x${'cd'.repeat(32)}`
    expect(await store.claim('eip155:8453', nonce, '0xAbC', inFiveMinutes())).toBe(true)
    expect(
      await store.claim('eip155:8453', nonce.toUpperCase().replace('0X', '0x'), '0xabc', inFiveMinutes()),
    ).toBe(false)
    // Another network or payer is another nonce.
    expect(await store.claim('eip155:84532', nonce, '0xabc', inFiveMinutes())).toBe(true)
    expect(await store.claim('eip155:8453', nonce, '0xdef', inFiveMinutes())).toBe(true)
  })

  it('forgets a nonce once its window has passed', async () => {
    const store = createDbNonceStore(database.db, clock)
    const nonce = `0x${'ef'.repeat(32)}`
    expect(await store.claim('eip155:8453', nonce, '0xabc', inFiveMinutes())).toBe(true)
    now = new Date(now.getTime() + 301_000)
    expect(await store.sweep()).toBeGreaterThan(0)
    expect(await store.claim('eip155:8453', nonce, '0xabc', inFiveMinutes())).toBe(true)
    expect(await store.claim('eip155:8453', nonce, '0xabc', inFiveMinutes())).toBe(false)
  })

  it('takes over a nonce whose window has passed before any sweep, with the new window, and only once', async () => {
    const store = createDbNonceStore(database.db, clock)
    const nonce = `0x${'12'.repeat(32)}`
    expect(await store.claim('eip155:8453', nonce, '0xabc', inFiveMinutes())).toBe(true)
    now = new Date(now.getTime() + 299_000)
    expect(await store.claim('eip155:8453', nonce, '0xabc', inFiveMinutes())).toBe(false)
    now = new Date(now.getTime() + 2_000)
    const expiresAt = inFiveMinutes()
    expect(await store.claim('eip155:8453', nonce, '0xabc', expiresAt)).toBe(true)
    expect(await store.claim('eip155:8453', nonce, '0xabc', inFiveMinutes())).toBe(false)
    const [row] = await database.db
      .select()
      .from(paymentNonces)
      .where(and(eq(paymentNonces.nonce, nonce), eq(paymentNonces.payer, '0xabc')))
    expect(row?.expiresAt.toISOString()).toBe(expiresAt.toISOString())
    expect(row?.createdAt.toISOString()).toBe(now.toISOString())
  })
})
