import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { createApiKeyService } from '../../core/keys/api-keys.ts'
import { createDatabase } from '../../core/store/database.ts'
import { testPostgresUrl } from '../support/database.ts'
import {
  afterSuite,
  answered,
  call,
  cleanUpAfterAll,
  keyState,
  killRepeatedlyUnderLoad,
  killUnderLoad,
  openReservations,
  PRICE,
  startChild,
} from '../support/key-charge-load.ts'
import { waitFor } from '../support/paid-server.ts'
import { startTempPostgres, type TempPostgres } from '../support/postgres.ts'

cleanUpAfterAll()

describe('key charges under faults on PostgreSQL', { timeout: 180_000 }, () => {
  it('kill -9 under 1,000 concurrent calls on PostgreSQL: debits = answers received x price', async () => {
    const url = await testPostgresUrl('keycrash')
    await killUnderLoad({ DATABASE_URL: url }, () => createDatabase({ url, maxConnections: 2 }))
  })

  it("two processes on one PostgreSQL: the survivor releases the dead one's debits and keeps its own calls", async () => {
    const url = await testPostgresUrl('keytwo')
    const env = { DATABASE_URL: url }
    const initial = PRICE * 2_000n
    const setup = await createDatabase({ url, maxConnections: 2 })
    const { apiKey, record } = await createApiKeyService({
      db: setup.db,
      clock: { now: () => new Date() },
    }).create({
      email: 'two@example.com',
      tier: 'pro',
      balance: initial,
    })
    const [victim, survivor] = await Promise.all([startChild(env), startChild(env)])
    // The victim: 200 calls that answer, 200 still running when it dies.
    const victimCalls = Array.from({ length: 400 }, (_, i) =>
      call(victim.url, apiKey, i % 2 === 0 ? { text: 'fast' } : { text: 'slow', wait_ms: 120_000 }),
    )
    // The survivor: 200 calls still running while it sweeps the victim's reservations.
    const survivorCalls = Array.from({ length: 200 }, () =>
      call(survivor.url, apiKey, { text: 'survives', wait_ms: 3_000 }),
    )
    const victimAnswered = (
      await Promise.all(
        victimCalls.filter((_, i) => i % 2 === 0).map(async (pending) => answered(await pending)),
      )
    ).filter(Boolean).length
    // The victim's answered calls captured: left open are its 200 running calls and the survivor's 200.
    await waitFor(
      async () => ((await openReservations(victim.url)) <= 400 ? true : undefined),
      "the victim's captures",
    )
    victim.child.kill('SIGKILL')
    await once(victim.child, 'exit')
    const survivorAnswered = (
      await Promise.all(survivorCalls.map(async (pending) => answered(await pending)))
    ).filter(Boolean).length
    expect(victimAnswered).toBe(200)
    expect(survivorAnswered).toBe(200)
    try {
      // The survivor's worker (every 200 ms) releases what the victim held; nobody restarts.
      const after = await waitFor(async () => {
        const state = await keyState(setup, record.id)
        return state.open === 0 ? state : undefined
      }, "the survivor's sweep")
      expect(after).toEqual({ balance: initial - PRICE * 400n, spent: PRICE * 400n, open: 0 })
    } finally {
      await setup.close()
      survivor.child.kill('SIGKILL')
    }
  })

  it('kill -9 three times under 48 connections on PostgreSQL: never debited without an answer, per key; idempotent calls (REST, MCP) recovered', async () => {
    const url = await testPostgresUrl('keykill3')
    await killRepeatedlyUnderLoad(
      { DATABASE_URL: url },
      () => createDatabase({ url, maxConnections: 2 }),
      'PostgreSQL',
    )
  })

  it('PostgreSQL stopped for 5 s under load: 503 with Retry-After, never 500, debits = answers x price', async () => {
    const server: TempPostgres = await startTempPostgres()
    afterSuite(() => server.stop())
    const observer = await createDatabase({ url: server.url, maxConnections: 2 })
    const initial = PRICE * 100_000n
    const { apiKey, record } = await createApiKeyService({
      db: observer.db,
      clock: { now: () => new Date() },
    }).create({ email: 'outage@example.com', tier: 'pro', balance: initial })
    await observer.close()

    const { child, url } = await startChild({ DATABASE_URL: server.url })
    const statuses = new Map<number | string, number>()
    let received = 0
    let missingRetryAfter = 0
    let stopping = false
    const worker = async () => {
      while (!stopping) {
        const response = await call(url, apiKey, { text: 'load', wait_ms: 20 })
        const status = response instanceof Error ? 'network' : response.status
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
        if (status === 503 && !(response as Response).headers.get('retry-after')) missingRetryAfter++
        if (await answered(response)) received++
        else if (!(response instanceof Error)) await response.body?.cancel()
      }
    }
    const workers = Array.from({ length: 16 }, worker)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    server.pause()
    await new Promise((resolve) => setTimeout(resolve, 5_000))
    server.resume()
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    stopping = true
    await Promise.all(workers)

    expect(statuses.get(500) ?? 0).toBe(0)
    expect(statuses.get('network') ?? 0).toBe(0)
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0)
    expect(missingRetryAfter).toBe(0)
    expect(received).toBeGreaterThan(0)
    expect(received).toBe(statuses.get(200))

    const check = await createDatabase({ url: server.url, maxConnections: 2 })
    try {
      // Refunds that could not be written during the outage are written by the worker's sweep.
      // Captures of answers delivered during the outage are written by the worker's sweep too.
      const after = await waitFor(async () => {
        const state = await keyState(check, record.id)
        return state.spent === PRICE * BigInt(received) && state.open === 0 ? state : undefined
      }, 'the sweep to give back the debits of unanswered calls and capture the delivered ones')
      expect(after).toEqual({
        balance: initial - PRICE * BigInt(received),
        spent: PRICE * BigInt(received),
        open: 0,
      })
    } finally {
      await check.close()
      child.kill('SIGKILL')
    }
  })
})
