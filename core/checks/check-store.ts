import { and, count, desc, eq, gte, inArray } from 'drizzle-orm'
import type { Caller } from '../context.ts'
import type { Db } from '../store/database.ts'
import { entityChecks } from '../store/schema.ts'

/** Whose checks these are: `key:<id>` for a key holder, `x402:<network>:<payer>` for a payer. */
export function ownerOf(caller: Caller): { owner: string; keyId: string | null } | null {
  if (caller.kind === 'key') return { owner: `key:${caller.keyId}`, keyId: caller.keyId }
  if (caller.kind === 'x402')
    return { owner: `x402:${caller.network}:${caller.payer.toLowerCase()}`, keyId: null }
  return null
}

export interface StoredCheck {
  id: string
  owner: string
  keyId: string | null
  operation: string
  entityHash: string
  inputHash: string
  /** The tier that produced the result (fresh or enhanced). */
  quality: string
  input: unknown
  result: Record<string, unknown>
  trustScore: number | null
  createdAt: Date
}

export interface CheckStore {
  save(check: StoredCheck): Promise<void>
  /** The newest result of the same operation and inputs for this owner created at or after `since`. */
  findRecent(owner: string, operation: string, inputHash: string, since: Date): Promise<StoredCheck | null>
  /** One stored check of this owner by id; null for an unknown id or another owner's check. */
  get(owner: string, id: string): Promise<StoredCheck | null>
  /** This owner's checks of an entity, newest first. */
  history(
    owner: string,
    entityHash: string,
    options?: { limit?: number; offset?: number; operations?: readonly string[] },
  ): Promise<{ total: number; checks: StoredCheck[] }>
}

/**
 * Stored company checks on the service database (spec: "Every entity check is stored (per
 * key)"). Every query is scoped by owner, so one tenant never reads another's checks.
 */
export function createCheckStore(db: Db): CheckStore {
  const toStored = (row: typeof entityChecks.$inferSelect): StoredCheck => ({
    id: row.id,
    owner: row.owner,
    keyId: row.keyId,
    operation: row.operation,
    entityHash: row.entityHash,
    inputHash: row.inputHash,
    quality: row.quality,
    input: row.input,
    result: row.result as Record<string, unknown>,
    trustScore: row.trustScore,
    createdAt: row.createdAt,
  })
  return {
    async save(check) {
      await db.insert(entityChecks).values({
        id: check.id,
        owner: check.owner,
        keyId: check.keyId,
        operation: check.operation,
        entityHash: check.entityHash,
        inputHash: check.inputHash,
        quality: check.quality,
        input: check.input,
        result: check.result,
        trustScore: check.trustScore,
        createdAt: check.createdAt,
      })
    },
    async get(owner, id) {
      const rows = await db
        .select()
        .from(entityChecks)
        .where(and(eq(entityChecks.owner, owner), eq(entityChecks.id, id)))
        .limit(1)
      return rows[0] ? toStored(rows[0]) : null
    },
    async findRecent(owner, operation, hash, since) {
      const rows = await db
        .select()
        .from(entityChecks)
        .where(
          and(
            eq(entityChecks.owner, owner),
            eq(entityChecks.operation, operation),
            eq(entityChecks.inputHash, hash),
            gte(entityChecks.createdAt, since),
          ),
        )
        .orderBy(desc(entityChecks.createdAt))
        .limit(1)
      return rows[0] ? toStored(rows[0]) : null
    },
    async history(owner, hash, options = {}) {
      const where = and(
        eq(entityChecks.owner, owner),
        eq(entityChecks.entityHash, hash),
        options.operations ? inArray(entityChecks.operation, [...options.operations]) : undefined,
      )
      const [totals, rows] = await Promise.all([
        db.select({ total: count() }).from(entityChecks).where(where),
        db
          .select()
          .from(entityChecks)
          .where(where)
          .orderBy(desc(entityChecks.createdAt), desc(entityChecks.id))
          .limit(options.limit ?? 50)
          .offset(options.offset ?? 0),
      ])
      return { total: Number(totals[0]?.total ?? 0), checks: rows.map(toStored) }
    },
  }
}
