import { randomUUID } from 'node:crypto'
import { and, asc, count, eq, sql } from 'drizzle-orm'
import type { Clock } from '../context.ts'
import { ServiceError } from '../errors.ts'
import type { Db } from '../store/database.ts'
import { watchlistEntries } from '../store/schema.ts'

/** The per-key watchlist cap (docs/sanctions.md, "Sanctions monitoring"). */
export const DEFAULT_WATCHLIST_CAP = 10_000

export type WatchlistKind = 'name' | 'wallet' | 'registration'

export interface WatchlistEntry {
  watchlist_id: string
  type: WatchlistKind
  value: string
  country: string | null
  chain: string | null
  label: string | null
  created_at: string
}

export interface WatchlistStore {
  /** Adds an entry; 422 when the key already holds `cap` entries (counted exactly under concurrency). */
  add(keyId: string, entry: Omit<WatchlistEntry, 'watchlist_id' | 'created_at'>): Promise<WatchlistEntry>
  list(
    keyId: string,
    options: { limit: number; offset: number },
  ): Promise<{ total: number; entries: WatchlistEntry[] }>
  get(keyId: string, id: string): Promise<WatchlistEntry | null>
  remove(keyId: string, id: string): Promise<boolean>
  /** Every entry of every key (alert matching). */
  all(): Promise<(WatchlistEntry & { key_id: string })[]>
}

type Row = typeof watchlistEntries.$inferSelect

function toEntry(row: Row): WatchlistEntry {
  return {
    watchlist_id: row.id,
    type: row.kind as WatchlistKind,
    value: row.value,
    country: row.country,
    chain: row.chain,
    label: row.label,
    created_at: row.createdAt.toISOString(),
  }
}

/** Watchlists on the service database; every query is scoped by key id. */
export function createWatchlistStore(db: Db, clock: Clock, cap = DEFAULT_WATCHLIST_CAP): WatchlistStore {
  const countOf = async (keyId: string) => {
    const [row] = await db
      .select({ n: count() })
      .from(watchlistEntries)
      .where(eq(watchlistEntries.keyId, keyId))
    return Number(row?.n ?? 0)
  }
  const full = () =>
    new ServiceError('validation_failed', 'watchlist is full', {
      fields: [{ field: 'value', message: `a key may watch at most ${cap} entries; delete some first` }],
    })

  return {
    async add(keyId, entry) {
      // Count and insert in one transaction under a per-key lock: concurrent adds of one key queue
      // here (on PostgreSQL across processes too; PGlite runs one transaction at a time), so exactly
      // `cap` entries are stored and every add past it is refused, never one while a slot is free.
      const row = await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`watchlist:${keyId}`}, 0))`)
        const [held] = await tx
          .select({ n: count() })
          .from(watchlistEntries)
          .where(eq(watchlistEntries.keyId, keyId))
        if (Number(held?.n ?? 0) >= cap) throw full()
        const [inserted] = await tx
          .insert(watchlistEntries)
          .values({
            id: `wl_${randomUUID().replaceAll('-', '')}`,
            keyId,
            kind: entry.type,
            value: entry.value,
            country: entry.country,
            chain: entry.chain,
            label: entry.label,
            createdAt: clock.now(),
          })
          .returning()
        return inserted
      })
      if (!row) throw new Error('watchlist entry not stored')
      return toEntry(row)
    },

    async list(keyId, { limit, offset }) {
      const total = await countOf(keyId)
      const rows = await db
        .select()
        .from(watchlistEntries)
        .where(eq(watchlistEntries.keyId, keyId))
        .orderBy(asc(watchlistEntries.createdAt), asc(watchlistEntries.id))
        .limit(limit)
        .offset(offset)
      return { total, entries: rows.map(toEntry) }
    },

    async get(keyId, id) {
      const [row] = await db
        .select()
        .from(watchlistEntries)
        .where(and(eq(watchlistEntries.keyId, keyId), eq(watchlistEntries.id, id)))
        .limit(1)
      return row ? toEntry(row) : null
    },

    async remove(keyId, id) {
      const rows = await db
        .delete(watchlistEntries)
        .where(and(eq(watchlistEntries.keyId, keyId), eq(watchlistEntries.id, id)))
        .returning({ id: watchlistEntries.id })
      return rows.length > 0
    },

    async all() {
      const rows = await db.select().from(watchlistEntries)
      return rows.map((row) => ({ ...toEntry(row), key_id: row.keyId }))
    },
  }
}
