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
   * Revokes a key at once (every process reads the status on each call). The balance stays on the
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
}

export interface ApiKeyServiceOptions {
  db: Db
  clock: Clock
  /** The operator's key (ADMIN_API_KEY); compared in constant time, never stored. */
  adminKey?: string
}

/** Keys as the spec describes them: shown once, stored hashed, prefixed by mode. */
export function createApiKeyService({ db, clock, adminKey }: ApiKeyServiceOptions): ApiKeyService {
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
      const row = await lookupByHash(presentedHash)
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
      if (row) return toRecord(row)
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
      return row ? toRecord(row) : null
    },

    async expire(keyId, at) {
      const [row] = await db
        .update(apiKeys)
        .set({ expiresAt: at })
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.role, 'customer')))
        .returning()
      return row ? toRecord(row) : null
    },

    async spentTotal(keyId) {
      const [row] = await db
        .select({ total: sql<string>`coalesce(sum(${apiKeys.spentMicros}), 0)` })
        .from(apiKeys)
        .where(keyId === undefined ? undefined : eq(apiKeys.id, keyId))
      return BigInt(row?.total ?? 0)
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
}
