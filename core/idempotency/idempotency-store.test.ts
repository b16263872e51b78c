import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_KINDS, openTestDatabase } from '../../test/support/database.ts'
import { createApiKeyService } from '../keys/api-keys.ts'
import { createKeyReservations } from '../keys/reservations.ts'
import type { Database } from '../store/database.ts'
import { createIdempotencyStore, idempotencyRequestHash } from './idempotency-store.ts'

/**
 * An answer written under a key debit's reservation is replayable exactly when the debit stands:
 * the capture statement marks it done, a release (refund, or the sweep of a dead process) deletes it.
 */
describe.each(DATABASE_KINDS)('idempotency records with key reservations (%s)', (kind) => {
  let database: Database
  let keyId: string

  beforeAll(async () => {
    database = await openTestDatabase(kind)
    const keys = createApiKeyService({ db: database.db, clock: { now: () => new Date() } })
    keyId = (await keys.create({ email: 'store@example.com', tier: 'pro', balance: 1_000_000n })).record.id
  })
  afterAll(async () => {
    await database?.close()
  })

  const request = (idempotencyKey: string) => ({
    keyId,
    idempotencyKey,
    operation: 'paid_echo',
    requestHash: idempotencyRequestHash('paid_echo', 'fresh', { text: idempotencyKey }),
    now: new Date(),
  })
  const answer = { status: 200, body: '{"echo":"x"}' }

  it('makes the answer replayable in the capture statement, with no write after it', async () => {
    const store = createIdempotencyStore(database.db, { deliveryWaitMs: 0 })
    const reservations = createKeyReservations({ db: database.db, instanceId: 'alive' })
    const claim = await store.claim(request('captured'))
    if (claim.kind !== 'claimed') throw new Error(claim.kind)
    const reservation = await reservations.reserve(keyId, 1_000n, 'paid_echo')
    if (!reservation) throw new Error('not reserved')
    expect(await store.answer(keyId, 'captured', claim.claimId, answer, reservation.id)).toBe(true)
    expect((await store.claim(request('captured'))).kind).toBe('in_progress')
    await reservations.capture(reservation.id)
    expect(await store.claim(request('captured'))).toEqual({ kind: 'replay', answer })
  })

  it('a retry that arrives while the answer awaits its delivery waits for it: replayed, or run again', async () => {
    // Far above the default, so a slow machine cannot turn the wait into a 409 here.
    const store = createIdempotencyStore(database.db, { deliveryWaitMs: 30_000 })
    const reservations = createKeyReservations({ db: database.db, instanceId: 'alive' })
    const answered = async (idempotencyKey: string) => {
      const claim = await store.claim(request(idempotencyKey))
      if (claim.kind !== 'claimed') throw new Error(claim.kind)
      const reservation = await reservations.reserve(keyId, 1_000n, 'paid_echo')
      if (!reservation) throw new Error('not reserved')
      await store.answer(keyId, idempotencyKey, claim.claimId, answer, reservation.id)
      return reservation.id
    }
    const delivered = await answered('retried-early')
    const retry = store.claim(request('retried-early'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    await reservations.capture(delivered)
    expect(await retry).toEqual({ kind: 'replay', answer })

    const lost = await answered('retried-after-loss')
    const rerun = store.claim(request('retried-after-loss'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    await reservations.release(lost)
    expect((await rerun).kind).toBe('claimed')
  })

  it('deletes the answer with a released reservation, so the retry runs', async () => {
    const store = createIdempotencyStore(database.db)
    const reservations = createKeyReservations({ db: database.db, instanceId: 'alive' })
    const claim = await store.claim(request('released'))
    if (claim.kind !== 'claimed') throw new Error(claim.kind)
    const reservation = await reservations.reserve(keyId, 1_000n, 'paid_echo')
    if (!reservation) throw new Error('not reserved')
    await store.answer(keyId, 'released', claim.claimId, answer, reservation.id)
    await reservations.release(reservation.id)
    expect((await store.claim(request('released'))).kind).toBe('claimed')
  })

  it('deletes the answer of a process that died before the capture when the sweep refunds it', async () => {
    const store = createIdempotencyStore(database.db)
    const dead = createKeyReservations({ db: database.db, instanceId: 'dead-process' })
    const claim = await store.claim(request('swept'))
    if (claim.kind !== 'claimed') throw new Error(claim.kind)
    const reservation = await dead.reserve(keyId, 1_000n, 'paid_echo')
    if (!reservation) throw new Error('not reserved')
    await store.answer(keyId, 'swept', claim.claimId, answer, reservation.id)
    // The process dies here. The next process's sweep refunds the debit and frees the key at once.
    const next = createKeyReservations({ db: database.db, instanceId: 'next-process' })
    expect(await next.sweep(async (instance) => instance !== 'dead-process')).toBe(1)
    expect((await store.claim(request('swept'))).kind).toBe('claimed')
  })

  it('frees the claim of a process that died before it reserved or answered, so a retry runs at once', async () => {
    const dying = createIdempotencyStore(database.db, { instanceId: 'died-early' })
    const claim = await dying.claim(request('early'))
    if (claim.kind !== 'claimed') throw new Error(claim.kind)
    const store = createIdempotencyStore(database.db, { instanceId: 'next-process' })
    expect((await store.claim(request('early'))).kind).toBe('in_progress')
    // The process dies here; the sweep of a live one frees its claim (no 2-minute takeover wait).
    const next = createKeyReservations({ db: database.db, instanceId: 'next-process' })
    await next.sweep(async (instance) => instance !== 'died-early')
    expect((await store.claim(request('early'))).kind).toBe('claimed')
  })

  it("keeps a live process's claims through the sweep", async () => {
    const live = createIdempotencyStore(database.db, { instanceId: 'still-running' })
    const claim = await live.claim(request('live'))
    if (claim.kind !== 'claimed') throw new Error(claim.kind)
    const other = createKeyReservations({ db: database.db, instanceId: 'other-process' })
    await other.sweep(async () => true)
    expect((await live.claim(request('live'))).kind).toBe('in_progress')
  })
})
