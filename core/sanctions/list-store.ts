import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { gunzip, gzip } from 'node:zlib'
import { and, desc, eq, getTableColumns, lt, notInArray, or } from 'drizzle-orm'
import type { Clock } from '../context.ts'
import type { Db } from '../store/database.ts'
import { sanctionsListDiffs, sanctionsListVersions, sanctionsRefreshLeases } from '../store/schema.ts'
import type { ListDiff } from './list-diff.ts'
import type { ListFormat, ListKey, ParsedList, SanctionsEntry } from './types.ts'

const gzipAsync = promisify(gzip)
const gunzipAsync = promisify(gunzip)

/**
 * The database side of the sanctions lists: list versions (with their entries as one gzip JSON
 * blob), the diff between consecutive versions, and the lease that lets one process refresh at
 * a time. Restart = `latestWithEntries()` (one row per list) + buildSanctionsIndexFromEntries.
 */

/** A stored list version without its entries. */
export interface StoredListVersion {
  id: string
  list_key: ListKey
  format: ListFormat
  publication_date: string | null
  sha256: string
  entry_count: number
  source: string
  fetched_at: Date
  checked_at: Date
  warnings: string[]
}

export interface StoredListVersionWithEntries extends StoredListVersion {
  entries: SanctionsEntry[]
}

/** A stored diff; `detail` holds the entries (added, removed, changed with what changed). */
export interface StoredListDiff {
  id: string
  list_key: ListKey
  from_version: string
  to_version: string
  from_date: string | null
  to_date: string | null
  added_count: number
  removed_count: number
  changed_count: number
  created_at: Date
}

export interface StoredListDiffDetail extends StoredListDiff {
  detail: Pick<ListDiff, 'added' | 'removed' | 'changed' | 'unchanged_count'>
}

export interface SaveListVersionInput {
  list: ParsedList
  sha256: string
  source: string
  fetchedAt: Date
  /** The diff from the previous stored version, when there is one. */
  diff?: { fromVersion: string; diff: ListDiff }
  /** Versions of this list to keep, newest first (older ones are deleted; diffs stay). */
  keep: number
}

export interface SanctionsListStore {
  /** The newest version of each list that has one (metadata only, cheap). */
  latest(): Promise<StoredListVersion[]>
  /** The newest version of each list with its entries: what a restart loads. */
  latestWithEntries(): Promise<StoredListVersionWithEntries[]>
  /** One version's entries. */
  readEntries(versionId: string): Promise<SanctionsEntry[] | null>
  /** Stores a new version (and its diff) in one transaction and prunes old versions. */
  saveVersion(input: SaveListVersionInput): Promise<{ version: StoredListVersion; diff?: StoredListDiff }>
  /** Records that the source was read again and was unchanged. */
  markChecked(versionId: string, at: Date, source: string): Promise<void>
  /** Versions of one list, newest first (metadata only). */
  versions(listKey: ListKey): Promise<StoredListVersion[]>
  /** Stored diffs, newest first. */
  diffs(options?: { listKey?: ListKey; limit?: number }): Promise<StoredListDiff[]>
  /** One diff with its detail. */
  readDiff(diffId: string): Promise<StoredListDiffDetail | null>
  /**
   * Claims the named lease for `ttlMs` when it is free, expired or already ours (one atomic
   * statement, so of two processes claiming at once exactly one wins). Also renews.
   */
  claimLease(name: string, holder: string, ttlMs: number): Promise<boolean>
  /** Gives the lease up (only when `holder` holds it). */
  releaseLease(name: string, holder: string): Promise<void>
}

const { entries: _entries, ...metadataColumns } = getTableColumns(sanctionsListVersions)

type VersionRow = Omit<typeof sanctionsListVersions.$inferSelect, 'entries'>

function toVersion(row: VersionRow): StoredListVersion {
  return {
    id: row.id,
    list_key: row.listKey as ListKey,
    format: row.format as ListFormat,
    publication_date: row.publicationDate,
    sha256: row.sha256,
    entry_count: row.entryCount,
    source: row.source,
    fetched_at: row.fetchedAt,
    checked_at: row.checkedAt,
    warnings: row.warnings ?? [],
  }
}

function toDiff(row: Omit<typeof sanctionsListDiffs.$inferSelect, 'detail'>): StoredListDiff {
  return {
    id: row.id,
    list_key: row.listKey as ListKey,
    from_version: row.fromVersion,
    to_version: row.toVersion,
    from_date: row.fromDate,
    to_date: row.toDate,
    added_count: row.addedCount,
    removed_count: row.removedCount,
    changed_count: row.changedCount,
    created_at: row.createdAt,
  }
}

/** Gzip of the entries as JSON (what the versions table stores). */
export async function packEntries(entries: readonly SanctionsEntry[]): Promise<Uint8Array> {
  return gzipAsync(Buffer.from(JSON.stringify(entries), 'utf8'))
}

/** The inverse of packEntries. */
export async function unpackEntries(blob: Uint8Array): Promise<SanctionsEntry[]> {
  const json = await gunzipAsync(blob)
  return JSON.parse(json.toString('utf8')) as SanctionsEntry[]
}

/** The store on the service database (PGlite or PostgreSQL). */
export function createSanctionsListStore(db: Db, clock: Clock): SanctionsListStore {
  const { detail: _detail, ...diffColumns } = getTableColumns(sanctionsListDiffs)

  return {
    async latest() {
      const rows = await db
        .selectDistinctOn([sanctionsListVersions.listKey], metadataColumns)
        .from(sanctionsListVersions)
        .orderBy(sanctionsListVersions.listKey, desc(sanctionsListVersions.fetchedAt))
      return rows.map(toVersion)
    },

    async latestWithEntries() {
      const rows = await db
        .selectDistinctOn([sanctionsListVersions.listKey])
        .from(sanctionsListVersions)
        .orderBy(sanctionsListVersions.listKey, desc(sanctionsListVersions.fetchedAt))
      return Promise.all(
        rows.map(async (row) => ({ ...toVersion(row), entries: await unpackEntries(row.entries) })),
      )
    },

    async readEntries(versionId) {
      const rows = await db
        .select({ entries: sanctionsListVersions.entries })
        .from(sanctionsListVersions)
        .where(eq(sanctionsListVersions.id, versionId))
        .limit(1)
      return rows[0] ? unpackEntries(rows[0].entries) : null
    },

    async saveVersion({ list, sha256, source, fetchedAt, diff, keep }) {
      const blob = await packEntries(list.entries)
      const versionId = randomUUID()
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(sanctionsListVersions)
          .values({
            id: versionId,
            listKey: list.list_key,
            format: list.format,
            publicationDate: list.publication_date,
            sha256,
            entryCount: list.entry_count,
            source,
            fetchedAt,
            checkedAt: fetchedAt,
            entries: blob,
            warnings: list.warnings?.length ? list.warnings : null,
          })
          .returning(metadataColumns)
        if (!row) throw new Error('sanctions list version was not stored')
        let storedDiff: StoredListDiff | undefined
        if (diff) {
          const [diffRow] = await tx
            .insert(sanctionsListDiffs)
            .values({
              id: randomUUID(),
              listKey: list.list_key,
              fromVersion: diff.fromVersion,
              toVersion: versionId,
              fromDate: diff.diff.from_date,
              toDate: diff.diff.to_date,
              addedCount: diff.diff.added.length,
              removedCount: diff.diff.removed.length,
              changedCount: diff.diff.changed.length,
              detail: {
                added: diff.diff.added,
                removed: diff.diff.removed,
                changed: diff.diff.changed,
                unchanged_count: diff.diff.unchanged_count,
              },
              createdAt: fetchedAt,
            })
            .returning(diffColumns)
          if (diffRow) storedDiff = toDiff(diffRow)
        }
        const kept = await tx
          .select({ id: sanctionsListVersions.id })
          .from(sanctionsListVersions)
          .where(eq(sanctionsListVersions.listKey, list.list_key))
          .orderBy(desc(sanctionsListVersions.fetchedAt))
          .limit(Math.max(1, keep))
        await tx.delete(sanctionsListVersions).where(
          and(
            eq(sanctionsListVersions.listKey, list.list_key),
            notInArray(
              sanctionsListVersions.id,
              kept.map((k) => k.id),
            ),
          ),
        )
        return { version: toVersion(row), ...(storedDiff ? { diff: storedDiff } : {}) }
      })
    },

    async markChecked(versionId, at, source) {
      await db
        .update(sanctionsListVersions)
        .set({ checkedAt: at, source })
        .where(eq(sanctionsListVersions.id, versionId))
    },

    async versions(listKey) {
      const rows = await db
        .select(metadataColumns)
        .from(sanctionsListVersions)
        .where(eq(sanctionsListVersions.listKey, listKey))
        .orderBy(desc(sanctionsListVersions.fetchedAt))
      return rows.map(toVersion)
    },

    async diffs(options = {}) {
      const rows = await db
        .select(diffColumns)
        .from(sanctionsListDiffs)
        .where(options.listKey ? eq(sanctionsListDiffs.listKey, options.listKey) : undefined)
        .orderBy(desc(sanctionsListDiffs.createdAt))
        .limit(Math.min(Math.max(options.limit ?? 50, 1), 1000))
      return rows.map(toDiff)
    },

    async readDiff(diffId) {
      const rows = await db
        .select()
        .from(sanctionsListDiffs)
        .where(eq(sanctionsListDiffs.id, diffId))
        .limit(1)
      const row = rows[0]
      return row ? { ...toDiff(row), detail: row.detail as StoredListDiffDetail['detail'] } : null
    },

    async claimLease(name, holder, ttlMs) {
      const now = clock.now()
      const expiresAt = new Date(now.getTime() + ttlMs)
      const rows = await db
        .insert(sanctionsRefreshLeases)
        .values({ name, holder, expiresAt })
        .onConflictDoUpdate({
          target: sanctionsRefreshLeases.name,
          set: { holder, expiresAt },
          setWhere: or(lt(sanctionsRefreshLeases.expiresAt, now), eq(sanctionsRefreshLeases.holder, holder)),
        })
        .returning({ holder: sanctionsRefreshLeases.holder })
      return rows[0]?.holder === holder
    },

    async releaseLease(name, holder) {
      await db
        .update(sanctionsRefreshLeases)
        .set({ expiresAt: new Date(clock.now().getTime() - 1) })
        .where(and(eq(sanctionsRefreshLeases.name, name), eq(sanctionsRefreshLeases.holder, holder)))
    },
  }
}
