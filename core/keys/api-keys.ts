import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { and, eq, inArray, lte, sql } from 'drizzle-orm'
import type { Caller, Clock, Tier } from '../context.ts'
import { ServiceError } from '../errors.ts'
import { formatUsd, MAX_BALANCE_MICROS, type Micros } from '../money.ts'
import { createBatcher } from '../store/batcher.ts'
import type { Db, DbTransaction } from '../store/database.ts'
import { apiKeys } from '../store/schema.ts'

/** spec: Authentication. Key prefixes with the neutral word svc. */
export const KEY_PREFIX = { live: 'svc_live_', sandbox: 'svc_sandbox_', test: 'svc_test_' } as const

export const TIERS: readonly Tier[] = ['sandbox', 'free', 'starter', 'pro', 'enterprise']
/** Tiers POST /v1/keys/create provisions directly; higher tiers are bought with POST /v1/keys/upgrade/{tier}. */
export const SELF_SERVICE_TIERS: readonly Tier[] = ['sandbox', 'free']

const TIER_RANK: Record<Tier, number> = { sandbox: 0, free: 1, starter: 2, pro: 3, enterprise: 4 }

/** True when `tier` is at least `minimum` (spec: older tier rule, pro or higher). */
export function tierAtLeast(tier: Tier, minimum: Tier): boolean {
  return TIER_RANK[tier] >= TIER_RANK[minimum]
}

/** SHA-256 hex of a key. Keys carry 256 random bits, so a slow KDF adds nothing. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

function constantTimeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

export interface KeyRecord {
  id: string
  keyPrefix: string
  email: string
  tier: Tier
  mode: 'live' | 'sandbox'
  role: 'customer' | 'admin'
  status: string
  balanceMicros: Micros
  spentMicros: Micros
  callCount: bigint
  expiresAt: Date | null
  createdAt: Date
}

export interface CreatedKey {
  apiKey: string
  record: KeyRecord
}

export interface ApiKeyService {
  create(input: { email: string; tier: Tier; balance?: Micros }): Promise<CreatedKey>
  authenticate(presented: string | undefined): Promise<Caller>
  get(keyId: string): Promise<KeyRecord | null>
  credit(keyId: string, amount: Micros): Promise<KeyRecord>
  /**
   * Revokes a key: at once in this process, within KEY_CACHE_MS in every other one. The balance stays on the
   * record, forfeited: a revoked key never pays again (a call in flight at that moment that fails is
   * still refunded to the record). Null for an unknown key.
   */
  revoke(keyId: string): Promise<KeyRecord | null>
  /** Sets when a key expires (a moment in the past expires it now). Null for an unknown key. */
  expire(keyId: string, at: Date): Promise<KeyRecord | null>
  /**
   * A paid top-up (POST /v1/keys/upgrade/{tier}): adds `amount` and raises the tier, inside the
   * caller's transaction so it commits with the settled payment.
   */
  /** What keys spent from their prepaid balances: one key's, or all keys' (revenue figures). */
  spentTotal(keyId?: string): Promise<Micros>
  /**
   * Stops listening to this process's key changes (the cache is dropped): a closed service keeps
   * no listener, so a process that creates and closes services (tests, operator commands) does
   * not grow the listener set. Calling it twice is harmless.
   */
  close(): void
}

export interface ApiKeyServiceOptions {
  db: Db
  clock: Clock
  /** The operator's key (ADMIN_API_KEY); compared in constant time, never stored. */
  adminKey?: string
  /**
   * How long an authenticated key's record is trusted without reading it again (default
   * KEY_CACHE_MS). A change made in this process (revoke, expire, top-up) applies at once; one
   * made by another process or by hand applies within this bound. 0: read on every call.
   */
  cacheMs?: number
}

/**
 * The bound on a key change made elsewhere (another process, the operator CLI, SQL by hand):
 * a revocation, expiry or tier change is seen by every process within this many milliseconds.
 */
export const KEY_CACHE_MS = 1000

/** A cached record is read again in the background once this share of its life has passed. */
const REFRESH_AHEAD = 0.5

/**
 * Key changes written through this module (credits of settled top-ups run inside another
 * module's transaction) reach the caches of every key service in this process at once.
 */
const localKeyChanges = new Set<(keyId: string) => void>()
function keyChanged(keyId: string): void {
  for (const listener of localKeyChanges) listener(keyId)
}

/** How many key services of this process listen to key changes now (one per open cached service). */
export function keyChangeListenerCount(): number {
  return localKeyChanges.size
}

/** Keys as the spec describes them: shown once, stored hashed, prefixed by mode. */
export function createApiKeyService({
  db,
  clock,
  adminKey,
  cacheMs = KEY_CACHE_MS,
}: ApiKeyServiceOptions): ApiKeyService {
  const adminHash = adminKey ? hashKey(adminKey) : undefined

  // Under load, concurrent lookups of keys share one statement (core/store/batcher.ts); debits
  // are reservations (core/keys/reservations.ts).
  // The single-key statement is prepared once: building a query costs more than running it on PGlite.
  const selectByHash = db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .prepare('api_key_by_hash')
  const lookupByHash = createBatcher<string, typeof apiKeys.$inferSelect | undefined>(async (hashes) => {
    const unique = [...new Set(hashes)]
    const rows =
      unique.length === 1
        ? await selectByHash.execute({ hash: unique[0]! })
        : await db.select().from(apiKeys).where(inArray(apiKeys.keyHash, unique))
    const byHash = new Map(rows.map((row) => [row.keyHash, row]))
    return hashes.map((hash) => byHash.get(hash))
  })

  // Authentication reads each key at most about once per cacheMs (a hot key is read again in the
  // background before its record ages out, so its calls never wait for the database). Only keys
  // that exist are cached: a key created by another process works on its first call. The age is
  // measured on the monotonic clock, never the injected one (a test's frozen clock would keep
  // records forever).
  type KeyRow = typeof apiKeys.$inferSelect
  const cache = new Map<string, { row: KeyRow; readAt: number; refreshing?: boolean }>()
  const hashesById = new Map<string, string>()
  // Counts the changes seen here: a read that began before one is not cached (it may predate it).
  let changes = 0
  const forget = (keyId: string) => {
    changes++
    const hash = hashesById.get(keyId)
    if (hash === undefined) return
    hashesById.delete(keyId)
    cache.delete(hash)
  }
  if (cacheMs > 0) localKeyChanges.add(forget)
  // readAt is when the read began, so a record is never trusted past cacheMs after the moment it
  // reflects (a read racing a revocation cannot stretch the bound).
  const remember = (hash: string, row: KeyRow | undefined, readAt: number, changesAtRead: number) => {
    if (cacheMs <= 0 || changesAtRead !== changes) return
    if (!row) {
      const stale = cache.get(hash)
      if (stale) forget(stale.row.id)
      return
    }
    // Bounded: a flood of distinct valid keys cannot grow it without end.
    if (cache.size >= 100_000 && !cache.has(hash)) {
      const oldest = cache.keys().next().value as string
      forget(cache.get(oldest)!.row.id)
    }
    cache.set(hash, { row, readAt })
    hashesById.set(row.id, hash)
  }
  async function rowByHash(hash: string): Promise<KeyRow | undefined> {
    const cached = cache.get(hash)
    if (cached) {
      const now = performance.now()
      const age = now - cached.readAt
      if (age < cacheMs) {
        if (age >= cacheMs * REFRESH_AHEAD && !cached.refreshing) {
          cached.refreshing = true
          const changesAtRead = changes
          lookupByHash(hash).then(
            (row) => {
              cached.refreshing = false
              remember(hash, row, now, changesAtRead)
            },
            () => {
              cached.refreshing = false
            },
          )
        }
        return cached.row
      }
    }
    const readAt = performance.now()
    const changesAtRead = changes
    const row = await lookupByHash(hash)
    remember(hash, row, readAt, changesAtRead)
    return row
  }
  /** A write's result: the cached record of that key is dropped here and in this process's other services. */
  function changed<T extends { id: string } | undefined>(row: T): T {
    if (row) keyChanged(row.id)
    return row
  }

  async function get(keyId: string): Promise<KeyRecord | null> {
    const rows = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1)
    return rows[0] ? toRecord(rows[0]) : null
  }

  return {
    async create({ email, tier, balance = 0n }) {
      const mode = tier === 'sandbox' ? 'sandbox' : 'live'
      const secret = randomBytes(32).toString('base64url')
      const apiKey = `${KEY_PREFIX[mode]}${secret}`
      const [row] = await db
        .insert(apiKeys)
        .values({
          id: randomUUID(),
          keyHash: hashKey(apiKey),
          keyPrefix: apiKey.slice(0, KEY_PREFIX[mode].length + 4),
          email,
          tier,
          mode,
          balanceMicros: balance,
        })
        .returning()
      if (!row) throw new ServiceError('internal', 'key was not stored')
      return { apiKey, record: toRecord(row) }
    },

    async authenticate(presented) {
      if (presented === undefined || presented === '') return { kind: 'anonymous' }
      const presentedHash = hashKey(presented)
      if (adminHash && constantTimeEqualHex(presentedHash, adminHash)) {
        return { kind: 'key', keyId: 'admin', tier: 'enterprise', mode: 'live', role: 'admin' }
      }
      if (presented.startsWith(KEY_PREFIX.test)) {
        throw new ServiceError('unauthorized', 'test keys not accepted in production')
      }
      if (!presented.startsWith(KEY_PREFIX.live) && !presented.startsWith(KEY_PREFIX.sandbox)) {
        throw new ServiceError('unauthorized', 'invalid API key')
      }
      const row = await rowByHash(presentedHash)
      // The lookup is by hash; comparing the stored hash again in constant time keeps the check explicit.
      if (!row || !constantTimeEqualHex(row.keyHash, presentedHash)) {
        throw new ServiceError('unauthorized', 'invalid API key')
      }
      if (row.status !== 'active') throw new ServiceError('unauthorized', 'API key revoked')
      if (row.expiresAt && row.expiresAt.getTime() <= clock.now().getTime()) {
        throw new ServiceError('unauthorized', 'API key expired')
      }
      return {
        kind: 'key',
        keyId: row.id,
        tier: row.tier as Tier,
        mode: row.mode as 'live' | 'sandbox',
        role: row.role as 'customer' | 'admin',
      }
    },

    get,

    async credit(keyId, amount) {
      if (amount <= 0n) throw new ServiceError('validation_failed', 'credit must be positive')
      const [row] = await db
        .update(apiKeys)
        .set({ balanceMicros: sql`${apiKeys.balanceMicros} + ${amount}` })
        .where(and(eq(apiKeys.id, keyId), lte(apiKeys.balanceMicros, MAX_BALANCE_MICROS - amount)))
        .returning()
      if (changed(row)) return toRecord(row!)
      const current = await get(keyId)
      if (!current) throw new ServiceError('not_found', 'unknown key')
      throw new ServiceError('validation_failed', 'credit above the maximum balance', {
        fields: [
          {
            field: 'amount_usd',
            message: `would take the balance above the maximum of ${formatUsd(MAX_BALANCE_MICROS)} USD (balance now ${formatUsd(current.balanceMicros)} USD)`,
          },
        ],
      })
    },

    async revoke(keyId) {
      const [row] = await db
        .update(apiKeys)
        .set({ status: 'revoked' })
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.role, 'customer')))
        .returning()
      return changed(row) ? toRecord(row!) : null
    },

    async expire(keyId, at) {
      const [row] = await db
        .update(apiKeys)
        .set({ expiresAt: at })
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.role, 'customer')))
        .returning()
      return changed(row) ? toRecord(row!) : null
    },

    async spentTotal(keyId) {
      const [row] = await db
        .select({ total: sql<string>`coalesce(sum(${apiKeys.spentMicros}), 0)` })
        .from(apiKeys)
        .where(keyId === undefined ? undefined : eq(apiKeys.id, keyId))
      return BigInt(row?.total ?? 0)
    },

    close() {
      localKeyChanges.delete(forget)
      cache.clear()
      hashesById.clear()
    },
  }
}

function toRecord(row: typeof apiKeys.$inferSelect): KeyRecord {
  return {
    id: row.id,
    keyPrefix: row.keyPrefix,
    email: row.email,
    tier: row.tier as Tier,
    mode: row.mode as 'live' | 'sandbox',
    role: row.role as 'customer' | 'admin',
    status: row.status,
    balanceMicros: row.balanceMicros,
    spentMicros: row.spentMicros,
    callCount: row.callCount,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
  }
}

/**
 * A settled top-up's credit, inside the transaction that marks its payment SETTLED (the ledger
 * calls it on every path to SETTLED: at once, on a retry of the ledger write, or from the sweep).
 * The tier only goes up: a key already above the bought tier keeps its tier.
 */
export async function creditTopUp(
  tx: DbTransaction,
  keyId: string,
  amount: Micros,
  tier: Tier,
): Promise<void> {
  if (amount <= 0n) throw new ServiceError('validation_failed', 'credit must be positive')
  const order = sql.join(
    TIERS.map((name) => sql`${name}`),
    sql`, `,
  )
  const rank = (value: unknown) => sql`array_position(array[${order}]::text[], ${value}::text)`
  const rows = await tx
    .update(apiKeys)
    .set({
      balanceMicros: sql`${apiKeys.balanceMicros} + ${amount}`,
      tier: sql`case when ${rank(apiKeys.tier)} >= ${rank(tier)} then ${apiKeys.tier} else ${tier} end`,
    })
    .where(eq(apiKeys.id, keyId))
    .returning({ id: apiKeys.id })
  if (rows.length !== 1) throw new ServiceError('not_found', 'unknown key')
  keyChanged(keyId)
}
