import { afterAll, describe, expect, it } from 'vitest'
import { countExecutes } from '../../test/support/count-executes.ts'
import { type DATABASE_KINDS, openTestDatabase, testPostgresUrl } from '../../test/support/database.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import type { Caller, KeyCaller } from '../context.ts'
import { createDatabase, type Database, type Db } from '../store/database.ts'
import {
  DEFAULT_RATE_LIMITS,
  parseTierLimits,
  RateLimitedError,
  type RateLimitPolicy,
} from './rate-limit-policy.ts'
import { createRateLimiter as createLimiter, createRateLimiter } from './rate-limiter.ts'

const baseKey = (keyId: string, tier: KeyCaller['tier'] = 'pro'): Caller => ({
  kind: 'key',
  keyId,
  tier,
  mode: 'live',
  role: 'customer',
})

const policy = (perMinute: number, perDay: number, perMonth: number): RateLimitPolicy => ({
  ...DEFAULT_RATE_LIMITS,
  tiers: { ...DEFAULT_RATE_LIMITS.tiers, pro: { perMinute, perDay, perMonth } },
  x402PerMinute: 3,
  challengesPerMinute: 2,
})

async function refusal(promise: Promise<unknown>): Promise<RateLimitedError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof RateLimitedError) return error
    throw error
  }
  throw new Error('expected a 429')
}

const databases: Database[] = []
afterAll(async () => {
  for (const database of databases) await database.close()
})

const opened = new Map<string, Promise<Database>>()

/** One database per kind for the whole file (each test counts its own keys). */
async function open(kind: (typeof DATABASE_KINDS)[number]): Promise<Db> {
  let database = opened.get(kind)
  if (!database) {
    database = openTestDatabase(kind)
    opened.set(kind, database)
    databases.push(await database)
  }
  return (await database).db
}

describe('parseTierLimits', () => {
  it('reads per-minute/per-day/per-month, 0 meaning no limit', () => {
    expect(parseTierLimits('60/1000/0')).toEqual({ perMinute: 60, perDay: 1000, perMonth: Infinity })
    expect(parseTierLimits('60/1000')).toBeUndefined()
    expect(parseTierLimits('a/1/1')).toBeUndefined()
  })
})

const VARIANTS = [
  { name: 'shared statement on pglite', kind: 'pglite', store: undefined },
  { name: 'in memory on pglite (one process owns it)', kind: 'pglite', store: 'pglite' },
  { name: 'shared statement on postgres', kind: 'postgres', store: undefined },
] as const

describe.each(VARIANTS)('rate limiter: $name', ({ kind, store }) => {
  const createRateLimiter = (options: Parameters<typeof createLimiter>[0]) =>
    createLimiter({ ...options, kind: store })
  // Each variant counts its own keys (two variants share one PGlite database).
  const key = (keyId: string, tier: KeyCaller['tier'] = 'pro') => baseKey(`${store ?? 'sql'}-${keyId}`, tier)
  it('lets the per-minute limit through, then refuses with the headers data, and a new minute frees it', async () => {
    const clock = createManualClock('2026-03-10T10:00:05Z')
    const limiter = createRateLimiter({ db: await open(kind), clock, policy: policy(3, 100, 1000) })
    const states = [
      await limiter.admit(key('a')),
      await limiter.admit(key('a')),
      await limiter.admit(key('a')),
    ]
    expect(states.map((state) => state?.remaining)).toEqual([2, 1, 0])
    expect(states[0]).toMatchObject({
      window: 'minute',
      limit: 3,
      reset: Date.parse('2026-03-10T10:01:00Z') / 1000,
    })
    const error = await refusal(limiter.admit(key('a')))
    expect(error.code).toBe('rate_limited')
    expect(error.retryAfter).toBe(55)
    expect(error.rateLimit).toEqual({
      window: 'minute',
      limit: 3,
      remaining: 0,
      reset: Date.parse('2026-03-10T10:01:00Z') / 1000,
    })
    expect(error.message).toContain('3 calls per minute')
    // Another key has its own counter.
    expect((await limiter.admit(key('b')))?.remaining).toBe(2)
    clock.advance(60_000)
    expect((await limiter.admit(key('a')))?.remaining).toBe(2)
  })

  it('rolling 24 hours: refused calls use up nothing; a call leaves the window when its hour is 24 hours old', async () => {
    const clock = createManualClock('2026-03-10T10:30:00Z')
    const limiter = createRateLimiter({ db: await open(kind), clock, policy: policy(100, 4, 1000) })
    await limiter.admit(key('d'))
    clock.advance(2 * 3_600_000) // 12:30
    for (let i = 0; i < 3; i++) await limiter.admit(key('d'))
    for (let i = 0; i < 5; i++) await refusal(limiter.admit(key('d')))
    clock.advance(20 * 3_600_000) // 08:30 next day: the 10:xx call is still in the window
    const error = await refusal(limiter.admit(key('d')))
    expect(error.rateLimit.window).toBe('day')
    expect(error.message).toContain('daily limit exceeded: 4 calls per rolling 24 hours')
    expect(error.rateLimit.reset).toBe(Date.parse('2026-03-11T10:00:00Z') / 1000)
    expect(error.retryAfter).toBe(90 * 60)
    clock.set(new Date('2026-03-11T10:00:00Z'))
    const state = await limiter.admit(key('d'))
    expect(state).toMatchObject({ window: 'day', limit: 4, remaining: 0 })
    await refusal(limiter.admit(key('d')))
  })

  it('monthly cap resets on the 1st, 00:00 UTC', async () => {
    const clock = createManualClock('2026-01-31T23:58:00Z')
    const limiter = createRateLimiter({
      db: await open(kind),
      clock,
      policy: policy(100, Number.POSITIVE_INFINITY, 2),
    })
    await limiter.admit(key('m'))
    await limiter.admit(key('m'))
    const error = await refusal(limiter.admit(key('m')))
    expect(error.rateLimit).toMatchObject({
      window: 'month',
      limit: 2,
      reset: Date.parse('2026-02-01T00:00:00Z') / 1000,
    })
    expect(error.message).toContain('monthly cap exceeded')
    clock.set(new Date('2026-02-01T00:00:00Z'))
    expect(await limiter.admit(key('m'))).toMatchObject({ window: 'month', remaining: 1 })
  })

  it('x402 payers: per minute only, one counter per address whatever its case; the operator is never limited', async () => {
    const clock = createManualClock('2026-03-10T10:00:00Z')
    const limiter = createRateLimiter({ db: await open(kind), clock, policy: policy(1, 1, 1) })
    const payer = '0xAbCdEf0000000000000000000000000000000001'
    const states = []
    for (const address of [payer, payer.toLowerCase(), payer.toUpperCase().replace('0X', '0x')]) {
      states.push(await limiter.admit({ kind: 'x402', payer: address, network: 'eip155:8453' }))
    }
    expect(states.map((state) => state?.remaining)).toEqual([2, 1, 0])
    expect(states[0]?.window).toBe('minute')
    await refusal(limiter.admit({ kind: 'x402', payer, network: 'eip155:8453' }))
    const admin: Caller = { kind: 'key', keyId: 'admin', tier: 'enterprise', mode: 'live', role: 'admin' }
    for (let i = 0; i < 5; i++) expect(await limiter.admit(admin)).toBeUndefined()
    expect(await limiter.admit({ kind: 'anonymous' })).toBeUndefined()
  })

  it('anonymous 402 challenges are counted per client IP', async () => {
    const clock = createManualClock('2026-03-10T10:00:00Z')
    const limiter = createRateLimiter({ db: await open(kind), clock, policy: policy(1, 1, 1) })
    await limiter.admitChallenge('203.0.113.7')
    await limiter.admitChallenge('203.0.113.7')
    const error = await refusal(limiter.admitChallenge('203.0.113.7'))
    expect(error.rateLimit.limit).toBe(2)
    expect(await limiter.admitChallenge('203.0.113.8')).toMatchObject({ remaining: 1 })
    expect(await limiter.admitChallenge(undefined)).toBeUndefined()
  })

  it('sweeps payer counters idle for a minute, key counters only once every window is over', async () => {
    const clock = createManualClock('2026-04-30T23:59:00Z')
    const limiter = createRateLimiter({ db: await open(kind), clock, policy: policy(10, 10, 10) })
    await limiter.admit(key('sweep-key'))
    await limiter.admit({
      kind: 'x402',
      payer: '0x00000000000000000000000000000000000000aa',
      network: 'eip155:8453',
    })
    clock.advance(60_000) // 2026-05-01 00:00: new minute and month, but the day still holds the call
    expect(await limiter.sweep()).toBeGreaterThanOrEqual(1)
    expect((await limiter.admit(key('sweep-key')))?.remaining).toBe(8)
    clock.advance(25 * 3_600_000)
    await limiter.sweep()
    // The day is over but May still counts its call: the row was kept.
    expect(await limiter.admit(key('sweep-key'))).toMatchObject({ window: 'month', remaining: 8 })
    clock.set(new Date('2026-06-02T00:00:00Z'))
    expect(await limiter.sweep()).toBeGreaterThanOrEqual(1)
  })

  it('key creations: counted per client address (IPv6 by /64) and per normalised e-mail, the address first', async () => {
    const clock = createManualClock('2026-03-10T10:00:00Z')
    const limiter = createRateLimiter({ db: await open(kind), clock, policy: DEFAULT_RATE_LIMITS })
    const tag = store ?? 'sql'
    // 100 creations from one address in a minute, each with its own e-mail: 5 get through.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, n) =>
        limiter.admitSignup(`198.51.100.${tag.length}`, `u${n}-${tag}@example.com`),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5)
    const error = await refusal(limiter.admitSignup(`198.51.100.${tag.length}`, `late-${tag}@example.com`))
    expect(error.rateLimit).toMatchObject({ window: 'minute', limit: 5, remaining: 0 })
    expect(error.retryAfter).toBe(60)
    expect(error.message).toContain('5 calls per minute for key creations from one client address')
    // The e-mails of refused attempts were not counted: the address's refusal used up nothing else.
    expect(await limiter.admitSignup(undefined, `u99-${tag}@example.com`)).toMatchObject({
      window: 'day',
      limit: 3,
      remaining: 2,
    })
    // One e-mail in trivial variants from many addresses (IPv6 /64s): 3 per rolling 24 hours.
    const variants = [
      `Owner-${tag}+1@gmail.com`,
      `o.w.n.e.r-${tag}+2@googlemail.com`,
      `OWNER-${tag}@gmail.com.`,
    ]
    const states = []
    for (const [n, email] of variants.entries()) {
      states.push(await limiter.admitSignup(`2001:db8:${n}::1`, email))
    }
    expect(states.map((state) => state.remaining)).toEqual([2, 1, 0])
    const byEmail = await refusal(limiter.admitSignup('2001:db8:99::1', `owner-${tag}@gmail.com`))
    expect(byEmail.rateLimit).toMatchObject({ window: 'day', limit: 3, remaining: 0 })
    expect(byEmail.message).toContain('3 calls per rolling 24 hours for key creations for one e-mail')
    // Two addresses of one /64 are one address.
    for (let n = 0; n < 5; n++)
      await limiter.admitSignup(`2001:db8:abcd:${tag.length}::${n + 1}`, `v${n}-${tag}@example.com`)
    await refusal(limiter.admitSignup(`2001:db8:abcd:${tag.length}:ffff::1`, `w-${tag}@example.com`))
    // The sweep keeps key-creation counters while their day still counts.
    clock.advance(2 * 60_000)
    await limiter.sweep()
    await refusal(limiter.admitSignup('2001:db8:100::1', `OWNER-${tag}@gmail.com`))
    clock.advance(24 * 3_600_000)
    await limiter.sweep()
    expect((await limiter.admitSignup('2001:db8:100::1', `OWNER-${tag}@gmail.com`)).remaining).toBe(2)
  })

  it('concurrent calls in one process: exactly the limit gets through, each with its own Remaining', async () => {
    const limiter = createRateLimiter({
      db: await open(kind),
      clock: createManualClock('2026-03-10T10:00:00Z'),
      policy: policy(50, 1000, 1000),
    })
    const outcomes = await Promise.allSettled(Array.from({ length: 200 }, () => limiter.admit(key('c'))))
    const admitted = outcomes.filter((outcome) => outcome.status === 'fulfilled')
    expect(admitted).toHaveLength(50)
    const remaining = admitted.map((outcome) =>
      outcome.status === 'fulfilled' ? outcome.value?.remaining : -1,
    )
    expect(new Set(remaining).size).toBe(50)
    expect(Math.min(...(remaining as number[]))).toBe(0)
  })

  it('adds one statement per call at most (concurrent calls share one)', async () => {
    const db = await open(kind)
    let statements = 0
    const counting = countExecutes(db, () => {
      statements++
    })
    const limiter = createRateLimiter({
      db: counting,
      clock: createManualClock(),
      policy: policy(1000, 1000, 1000),
    })
    await limiter.admit(key('s'))
    expect(statements).toBe(1)
    await Promise.all(Array.from({ length: 20 }, (_, i) => limiter.admit(key(`s${i % 4}`))))
    if (store === 'pglite') {
      // In memory: one read per subject on its first call, then nothing until the write-back.
      expect(statements).toBe(5)
      await limiter.admit(key('s'))
      expect(statements).toBe(5)
      await limiter.close()
      expect(statements).toBe(6)
    } else expect(statements).toBe(2)
  })
})

describe('rate limiter on one PostgreSQL shared by several processes', () => {
  it('four pools (processes) counting one key at once: exactly the limit, never more', async () => {
    const url = await testPostgresUrl('rl')
    const pools = await Promise.all(
      Array.from({ length: 4 }, () => createDatabase({ url, maxConnections: 4 })),
    )
    databases.push(...pools)
    const clock = createManualClock('2026-03-10T10:00:00Z')
    const limiters = pools.map((pool) =>
      createRateLimiter({
        db: pool.db,
        clock,
        policy: policy(100, 1000, 1000),
      }),
    )
    const calls = Array.from({ length: 400 }, (_, i) => limiters[i % 4]!.admit(baseKey('shared')))
    const outcomes = await Promise.allSettled(calls)
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(100)
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected')
    expect(refused.every((outcome) => outcome.reason instanceof RateLimitedError)).toBe(true)
  })
})

describe('key creations on one PostgreSQL shared by several processes', () => {
  it('four pools creating keys from one address at once: exactly the documented 5', async () => {
    const url = await testPostgresUrl('rls')
    const pools = await Promise.all(
      Array.from({ length: 4 }, () => createDatabase({ url, maxConnections: 4 })),
    )
    databases.push(...pools)
    const clock = createManualClock('2026-03-10T10:00:00Z')
    const limiters = pools.map((pool) =>
      createRateLimiter({
        db: pool.db,
        clock,
        policy: DEFAULT_RATE_LIMITS,
      }),
    )
    const calls = Array.from({ length: 100 }, (_, n) =>
      limiters[n % 4]!.admitSignup('203.0.113.50', `person${n}@example.com`),
    )
    const outcomes = await Promise.allSettled(calls)
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5)
    const sameMailbox = await Promise.allSettled(
      Array.from({ length: 40 }, (_, n) =>
        limiters[n % 4]!.admitSignup(`192.0.2.${n + 1}`, n % 2 ? 'Team+x@example.org' : 'team@Example.org'),
      ),
    )
    expect(sameMailbox.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3)
  })
})

describe('in-memory counters of an embedded database', () => {
  it('are written back and read again by the next process on the same database', async () => {
    const db = await open('pglite')
    const clock = createManualClock('2026-03-10T10:00:00Z')
    const first = createRateLimiter({ db, clock, policy: policy(5, 100, 1000), kind: 'pglite' })
    const key = baseKey
    for (let i = 0; i < 3; i++) await first.admit(key('restart'))
    await first.close()
    const second = createRateLimiter({ db, clock, policy: policy(5, 100, 1000), kind: 'pglite' })
    expect(await second.admit(key('restart'))).toMatchObject({ window: 'minute', remaining: 1 })
    await second.admit(key('restart'))
    await refusal(second.admit(key('restart')))
    await second.close()
  })
})
