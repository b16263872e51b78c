import { createHash, randomUUID } from 'node:crypto'
import canonicalize from 'canonicalize'
import { and, desc, eq, inArray, lt, or, type SQL } from 'drizzle-orm'
import { z } from 'zod'
import type { Clock } from '../context.ts'
import { createBatcher } from '../store/batcher.ts'
import { type Db, executePrepared } from '../store/database.ts'
import { sanctionsDismissals } from '../store/schema.ts'
import { nameKeys } from './name-normaliser.ts'
import { addressKey, registrationKey } from './sanctions-index.ts'
import type { ListKey, SanctionsEntry } from './types.ts'

/**
 * Dismissed false positives that stay dismissed. An analyst of one key records that a list entry
 * matched by a subject is not that subject; later screens, entity checks, watchlist screens and
 * alerts of that key show the match as `dismissed` (who, when, why) instead of raising it again,
 * until the list entry itself changes: the dismissal holds the SHA-256 of the entry's canonical
 * content, and a list version where the entry reads otherwise re-opens it (`reopened`, "list
 * entry changed"), so an analyst looks again at what the list now says.
 */

export type DismissalSubjectType = 'name' | 'wallet' | 'registration'

/** Why a dismissal re-opens (the only reason today). */
export const ENTRY_CHANGED = 'list entry changed'

export interface Dismissal {
  dismissal_id: string
  subject_type: DismissalSubjectType
  subject: string
  list_key: ListKey
  entry_id: string
  entry_name: string
  entry_fingerprint: string
  reason: string
  dismissed_by: string
  dismissed_at: string
  status: 'active' | 'reopened'
  reopened_at: string | null
  reopened_reason: string | null
}

/** The dismissal a match carries when one of the calling key covers it. */
export const MatchDismissalSchema = z
  .object({
    status: z
      .enum(['dismissed', 'reopened'])
      .describe(
        'dismissed: the key dismissed this match and the entry is unchanged, so it does not count towards possible_match/result; reopened: the entry changed since it was dismissed, so it counts again',
      ),
    dismissal_id: z.string().describe('Id of the dismissal (GET /v1/sanctions/dismissals)'),
    dismissed_by: z.string().describe('Who dismissed it'),
    dismissed_at: z.string().describe('When it was dismissed (ISO timestamp)'),
    reason: z.string().describe('Why it was dismissed'),
    reopened_at: z.string().nullable().describe('When it was re-opened, else null'),
    reopened_reason: z.string().nullable().describe('Why it was re-opened ("list entry changed"), else null'),
  })
  .strict()
  .describe('Present when the calling key dismissed this match (API key callers only)')

/** What a match carries when a dismissal of the calling key covers it. */
export interface MatchDismissal {
  /** dismissed: the match stays visible but does not count; reopened: the entry changed, it counts again. */
  status: 'dismissed' | 'reopened'
  dismissal_id: string
  dismissed_by: string
  dismissed_at: string
  reason: string
  reopened_at: string | null
  reopened_reason: string | null
}

/** A change to a key's dismissals, for whoever records them (an audit trail). */
export interface DismissalEvent {
  type: 'created' | 'replaced' | 'deleted' | 'reopened'
  key_id: string
  dismissal: Dismissal
}

export interface NewDismissal {
  subject_type: DismissalSubjectType
  subject: string
  entry: SanctionsEntry
  reason: string
  dismissed_by: string
}

export interface DismissalPage {
  dismissals: Dismissal[]
  /** Pass as `cursor` for the next page; null on the last. */
  next_cursor: string | null
}

export interface DismissalStore {
  /** Dismisses (or dismisses again, replacing the earlier row of the same subject and entry). */
  create(keyId: string, input: NewDismissal): Promise<{ dismissal: Dismissal; replaced: boolean }>
  /** The key's dismissals, newest first. */
  list(keyId: string, options: { limit: number; cursor?: string }): Promise<DismissalPage>
  get(keyId: string, id: string): Promise<Dismissal | null>
  remove(keyId: string, id: string): Promise<boolean>
  /**
   * The subject's matches with the key's dismissals applied: a match whose entry was dismissed
   * and still reads the same gets `dismissal.status` dismissed; one whose entry changed since is
   * re-opened (stored, so GET shows it) and gets `dismissal.status` reopened.
   */
  apply<M extends DismissableMatch>(
    keyId: string,
    subjectType: DismissalSubjectType,
    subject: string,
    matches: readonly M[],
    current: EntryLookup,
  ): Promise<Array<M & { dismissal?: MatchDismissal }>>
  /** Every dismissal of every key, for alert building over a list diff. */
  allActive(): Promise<Array<Dismissal & { key_id: string }>>
  /** Re-opens dismissals whose entry changed; returns the ones it changed. */
  reopen(ids: readonly string[], reason: string): Promise<Dismissal[]>
}

export interface DismissableMatch {
  list_key: ListKey
  entry_id: string
}

/** The entry screens see now, by list and id. */
export type EntryLookup = (list: ListKey, entryId: string) => SanctionsEntry | undefined

export interface DismissalStoreOptions {
  db: Db
  clock: Clock
  /**
   * How old this process's list of a key's dismissed subjects may be (ms; default
   * DISMISSED_SUBJECTS_MS, 0: none kept, every screen with a match reads the database).
   */
  subjectsCacheMs?: number
  /** A monotonic clock in ms for the bound above (default performance.now; tests move it by hand). */
  monotonic?: () => number
  /** Called after each committed change (created, replaced, deleted, reopened): the place an audit trail connects. */
  onChange?: (event: DismissalEvent) => void | Promise<void>
}

/**
 * The subject as the matcher compares it: a name as its word-order-insensitive key (the matcher
 * finds "Usama Bin Laden" and "BIN LADEN, Usama" alike), a wallet as its address key (EVM and
 * bech32 in any letter case), a registration number on letters and digits. Null when nothing
 * comparable is left.
 */
export function subjectKeyOf(type: DismissalSubjectType, subject: string): string | null {
  if (type === 'name') return nameKeys(subject)?.tokens ?? null
  if (type === 'wallet') return addressKey(subject) || null
  return registrationKey(subject) || null
}

const fingerprints = new WeakMap<SanctionsEntry, string>()

function sortedBy<T>(items: readonly T[] | undefined, key: (item: T) => string): T[] {
  return [...(items ?? [])].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
}

/**
 * SHA-256 (hex) of the entry's canonical content: JCS (RFC 8785) of every published field
 * (names, aliases, programmes, countries, identifiers and addresses, dates, nationalities,
 * reference), with the lists sorted so that a list re-publishing the same entry in another order
 * does not re-open a dismissal.
 */
export function entryFingerprint(entry: SanctionsEntry): string {
  const cached = fingerprints.get(entry)
  if (cached) return cached
  const canonical = canonicalize({
    list: entry.list,
    entry_id: entry.entry_id,
    entry_type: entry.entry_type,
    name: entry.name,
    aliases: sortedBy(
      entry.aliases,
      (alias) => `${alias.name}\u0000${alias.kind ?? ''}\u0000${alias.quality ?? ''}`,
    ),
    programmes: sortedBy(entry.programmes, (value) => value),
    countries: sortedBy(entry.countries, (value) => value),
    listed_on: entry.listed_on,
    identifiers: sortedBy(entry.identifiers, (identifier) => canonicalize(identifier) ?? ''),
    birth_dates: sortedBy(entry.birth_dates, (value) => value),
    nationalities: sortedBy(entry.nationalities, (value) => value),
    reference: entry.reference ?? null,
  })
  const digest = createHash('sha256')
    .update(canonical ?? '')
    .digest('hex')
  fingerprints.set(entry, digest)
  return digest
}

type Row = typeof sanctionsDismissals.$inferSelect

function toDismissal(row: Row): Dismissal {
  return {
    dismissal_id: row.id,
    subject_type: row.subjectType as DismissalSubjectType,
    subject: row.subject,
    list_key: row.listKey as ListKey,
    entry_id: row.entryId,
    entry_name: row.entryName,
    entry_fingerprint: row.entryFingerprint,
    reason: row.reason,
    dismissed_by: row.dismissedBy,
    dismissed_at: row.createdAt.toISOString(),
    status: row.status as Dismissal['status'],
    reopened_at: row.reopenedAt?.toISOString() ?? null,
    reopened_reason: row.reopenedReason,
  }
}

/** The ids of the dismissals of a batch of subjects: $1 key ids, $2 subject types, $3 subject keys. */
const DISMISSAL_IDS_STATEMENT = `
  select d.id from sanctions_dismissals d
    join unnest($1::text[], $2::text[], $3::text[]) as w(key_id, subject_type, subject_key)
      on d.key_id = w.key_id and d.subject_type = w.subject_type and d.subject_key = w.subject_key`

/**
 * The subjects a batch of keys dismissed something for, at most $2 rows per key (more: the key's
 * screens look theirs up one by one). $1 key ids. Reads the (key, subject, entry) index.
 */
const DISMISSED_SUBJECTS_STATEMENT = `
  select k.key_id, d.subject_type, d.subject_key
    from unnest($1::text[]) as k(key_id)
    cross join lateral (
      select subject_type, subject_key from sanctions_dismissals
       where key_id = k.key_id
       limit $2::int
    ) as d`

/**
 * The bound on a dismissal made by another process (or by SQL, or an erasure) reaching this
 * process's screens: a key's dismissed subjects are read at most this long ago. Until it arrives
 * the match counts as any other (a screen never hides a match on a stale list: a subject the list
 * names is looked up in the database, rows and all). The process that records a dismissal sees it
 * at once. The same bound as a key change (core/keys/api-keys.ts KEY_CACHE_MS).
 */
export const DISMISSED_SUBJECTS_MS = 1000

/** A key's list is read again in the background once this share of its life has passed. */
const REFRESH_AHEAD = 0.5
/** A key with more dismissed (subject, entry) rows than this is not listed: its screens ask each time. */
const MAX_SUBJECT_ROWS_PER_KEY = 2_000
/** Keys whose lists are held, and subjects in all of them; the least recently read keys go first. */
const MAX_LISTED_KEYS = 5_000
const MAX_LISTED_SUBJECTS = 100_000

/** The dismissal as a match shows it. */
export function matchDismissalOf(dismissal: Dismissal, status: MatchDismissal['status']): MatchDismissal {
  return {
    status,
    dismissal_id: dismissal.dismissal_id,
    dismissed_by: dismissal.dismissed_by,
    dismissed_at: dismissal.dismissed_at,
    reason: dismissal.reason,
    reopened_at: dismissal.reopened_at,
    reopened_reason: dismissal.reopened_reason,
  }
}

/** Whether a dismissal still covers the entry as listed now (same content as when dismissed). */
export function stillCovers(dismissal: Dismissal, entry: SanctionsEntry | undefined): boolean {
  // An entry no longer listed cannot be raised by a screen; the dismissal stays as it was.
  return dismissal.status === 'active' && (!entry || entryFingerprint(entry) === dismissal.entry_fingerprint)
}

function encodeCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url')
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } | null {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|')
  const createdAt = new Date(at ?? '')
  return id && !Number.isNaN(createdAt.getTime()) ? { createdAt, id } : null
}

/** Dismissals on the service database; every query is scoped by key id. */
export function createDismissalStore(options: DismissalStoreOptions): DismissalStore {
  const { db, clock } = options
  const notify = async (event: DismissalEvent) => {
    await options.onChange?.(event)
  }

  async function reopen(ids: readonly string[], reason: string): Promise<Dismissal[]> {
    if (ids.length === 0) return []
    const rows = await db
      .update(sanctionsDismissals)
      .set({ status: 'reopened', reopenedAt: clock.now(), reopenedReason: reason })
      .where(and(inArray(sanctionsDismissals.id, [...ids]), eq(sanctionsDismissals.status, 'active')))
      .returning()
    for (const row of rows) await notify({ type: 'reopened', key_id: row.keyId, dismissal: toDismissal(row) })
    return rows.map(toDismissal)
  }

  type DismissalRow = typeof sanctionsDismissals.$inferSelect
  /** One subject's dismissals asked for by a screen: the key, the subject's kind and its key. */
  interface SubjectLookup {
    keyId: string
    subjectType: DismissalSubjectType
    subjectKey: string
  }
  const lookupId = (item: SubjectLookup) => `${item.keyId}\u0000${item.subjectType}\u0000${item.subjectKey}`

  /**
   * The dismissals of the subjects screened at the same time, in one statement (core/store/batcher.ts):
   * every screen with a match asks, so concurrent screens share one read instead of one each. Each
   * screen still sees the rows committed before it asked. The subjects are bound as arrays, so the
   * read is a prepared statement whatever the batch (executePrepared); it returns only ids, and
   * the rows of the few subjects that have dismissals are read in full by id.
   */
  const lookup = createBatcher<SubjectLookup, DismissalRow[]>(async (items) => {
    const wanted = [...new Map(items.map((item) => [lookupId(item), item])).values()]
    const found = await executePrepared(db, DISMISSAL_IDS_STATEMENT, [
      wanted.map((item) => item.keyId),
      wanted.map((item) => item.subjectType),
      wanted.map((item) => item.subjectKey),
    ])
    const rows =
      found.length === 0
        ? []
        : await db
            .select()
            .from(sanctionsDismissals)
            .where(
              inArray(
                sanctionsDismissals.id,
                found.map((row) => String(row.id)),
              ),
            )
    const bySubject = new Map<string, DismissalRow[]>()
    for (const row of rows) {
      const id = lookupId({
        keyId: row.keyId,
        subjectType: row.subjectType as DismissalSubjectType,
        subjectKey: row.subjectKey,
      })
      const list = bySubject.get(id)
      if (list) list.push(row)
      else bySubject.set(id, [row])
    }
    return items.map((item) => bySubject.get(lookupId(item)) ?? [])
  })

  /**
   * Which subjects each key dismissed something for, so the screens of a subject with no
   * dismissal (nearly all of them) skip the look-up: without it every screen with a match reads
   * the database once. Null subjects: too many to hold, look each up. Never a verdict: a listed
   * subject still reads its rows (so a dismissal deleted elsewhere is not applied), and a subject
   * missing from a list read before it was dismissed elsewhere counts as undismissed until the
   * next read (DISMISSED_SUBJECTS_MS).
   */
  interface DismissedSubjects {
    subjects: ReadonlySet<string> | null
    /** When the read was sent (monotonic ms). */
    readAt: number
  }
  const subjectsCacheMs = options.subjectsCacheMs ?? DISMISSED_SUBJECTS_MS
  const monotonic = options.monotonic ?? (() => performance.now())
  const dismissedSubjects = new Map<string, DismissedSubjects>()
  /** Reads under way, with the generation each was sent under: a newer dismissal is not joined to an older read. */
  const reading = new Map<string, { read: Promise<DismissedSubjects>; started: number }>()
  /** Bumped by every dismissal this process records: a read sent before it is not kept. */
  let generation = 0
  /** Subjects held in all keys' lists (bounded by MAX_LISTED_SUBJECTS). */
  let listedSubjects = 0
  const forget = (keyId: string) => {
    listedSubjects -= dismissedSubjects.get(keyId)?.subjects?.size ?? 0
    dismissedSubjects.delete(keyId)
  }
  const subjectId = (subjectType: DismissalSubjectType, subjectKey: string) =>
    `${subjectType}\u0000${subjectKey}`

  const readDismissedSubjects = createBatcher<string, ReadonlySet<string> | null>(async (keyIds) => {
    const unique = [...new Set(keyIds)]
    const rows = await executePrepared(db, DISMISSED_SUBJECTS_STATEMENT, [
      unique,
      MAX_SUBJECT_ROWS_PER_KEY + 1,
    ])
    const byKey = new Map<string, { rows: number; subjects: Set<string> }>()
    for (const row of rows) {
      const keyId = String(row.key_id)
      const held = byKey.get(keyId) ?? { rows: 0, subjects: new Set<string>() }
      byKey.set(keyId, held)
      held.rows++
      held.subjects.add(subjectId(row.subject_type as DismissalSubjectType, String(row.subject_key)))
    }
    return keyIds.map((keyId) => {
      const held = byKey.get(keyId)
      if (!held) return new Set<string>()
      return held.rows > MAX_SUBJECT_ROWS_PER_KEY ? null : held.subjects
    })
  })

  /** Reads a key's dismissed subjects (one read per key at a time, concurrent keys in one statement). */
  function readSubjects(keyId: string): Promise<DismissedSubjects> {
    const under = reading.get(keyId)
    if (under && under.started === generation) return under.read
    const readAt = monotonic()
    const started = generation
    const read = readDismissedSubjects(keyId)
      .then((subjects) => {
        const listed = { subjects, readAt }
        if (generation === started) {
          forget(keyId)
          dismissedSubjects.set(keyId, listed)
          listedSubjects += listed.subjects?.size ?? 0
          while (dismissedSubjects.size > MAX_LISTED_KEYS || listedSubjects > MAX_LISTED_SUBJECTS)
            forget(dismissedSubjects.keys().next().value as string)
        }
        return listed
      })
      .finally(() => {
        if (reading.get(keyId)?.read === read) reading.delete(keyId)
      })
    reading.set(keyId, { read, started })
    return read
  }

  /** Whether a screen of this subject must read the key's dismissals (false: it has none). */
  async function mayHaveDismissals(keyId: string, subject: string): Promise<boolean> {
    if (subjectsCacheMs <= 0) return true
    let listed = dismissedSubjects.get(keyId)
    const age = listed ? monotonic() - listed.readAt : Number.POSITIVE_INFINITY
    if (!listed || age > subjectsCacheMs) listed = await readSubjects(keyId)
    else if (age > subjectsCacheMs * REFRESH_AHEAD && !reading.has(keyId))
      // A failed read in the background leaves the list to expire: the next screen past the bound reads it.
      readSubjects(keyId).catch(() => {})
    return listed.subjects === null || listed.subjects.has(subject)
  }

  return {
    async create(keyId, input) {
      const subjectKey = subjectKeyOf(input.subject_type, input.subject)
      if (!subjectKey) throw new Error('dismissal subject has nothing to compare')
      const now = clock.now()
      const values = {
        id: `dis_${randomUUID().replaceAll('-', '')}`,
        keyId,
        subjectType: input.subject_type,
        subject: input.subject,
        subjectKey,
        listKey: input.entry.list,
        entryId: input.entry.entry_id,
        entryName: input.entry.name,
        entryFingerprint: entryFingerprint(input.entry),
        reason: input.reason,
        dismissedBy: input.dismissed_by,
        status: 'active',
        reopenedAt: null,
        reopenedReason: null,
        createdAt: now,
      }
      const existing = await db
        .select({ id: sanctionsDismissals.id })
        .from(sanctionsDismissals)
        .where(
          and(
            eq(sanctionsDismissals.keyId, keyId),
            eq(sanctionsDismissals.subjectType, input.subject_type),
            eq(sanctionsDismissals.subjectKey, subjectKey),
            eq(sanctionsDismissals.listKey, input.entry.list),
            eq(sanctionsDismissals.entryId, input.entry.entry_id),
          ),
        )
      const { id: _id, keyId: _key, ...replacement } = values
      const [row] = await db
        .insert(sanctionsDismissals)
        .values(values)
        .onConflictDoUpdate({
          target: [
            sanctionsDismissals.keyId,
            sanctionsDismissals.subjectType,
            sanctionsDismissals.subjectKey,
            sanctionsDismissals.listKey,
            sanctionsDismissals.entryId,
          ],
          set: replacement,
        })
        .returning()
      const dismissal = toDismissal(row!)
      const replaced = existing.length > 0
      // This process's screens see it from now on: the key's list is read again.
      generation++
      forget(keyId)
      await notify({ type: replaced ? 'replaced' : 'created', key_id: keyId, dismissal })
      return { dismissal, replaced }
    },

    async list(keyId, { limit, cursor }) {
      const conditions: SQL[] = [eq(sanctionsDismissals.keyId, keyId)]
      const after = cursor ? decodeCursor(cursor) : null
      if (after) {
        conditions.push(
          or(
            lt(sanctionsDismissals.createdAt, after.createdAt),
            and(eq(sanctionsDismissals.createdAt, after.createdAt), lt(sanctionsDismissals.id, after.id)),
          ) as SQL,
        )
      }
      const rows = await db
        .select()
        .from(sanctionsDismissals)
        .where(and(...conditions))
        .orderBy(desc(sanctionsDismissals.createdAt), desc(sanctionsDismissals.id))
        .limit(limit + 1)
      const page = rows.slice(0, limit)
      const last = page.at(-1)
      return {
        dismissals: page.map(toDismissal),
        next_cursor: rows.length > limit && last ? encodeCursor(last) : null,
      }
    },

    async get(keyId, id) {
      const [row] = await db
        .select()
        .from(sanctionsDismissals)
        .where(and(eq(sanctionsDismissals.keyId, keyId), eq(sanctionsDismissals.id, id)))
      return row ? toDismissal(row) : null
    },

    async remove(keyId, id) {
      const rows = await db
        .delete(sanctionsDismissals)
        .where(and(eq(sanctionsDismissals.keyId, keyId), eq(sanctionsDismissals.id, id)))
        .returning()
      for (const row of rows) await notify({ type: 'deleted', key_id: keyId, dismissal: toDismissal(row) })
      return rows.length > 0
    },

    async apply(keyId, subjectType, subject, matches, current) {
      const subjectKey = subjectKeyOf(subjectType, subject)
      if (!subjectKey || matches.length === 0) return [...matches]
      if (!(await mayHaveDismissals(keyId, subjectId(subjectType, subjectKey)))) return [...matches]
      const rows = await lookup({ keyId, subjectType, subjectKey })
      if (rows.length === 0) return [...matches]
      const byEntry = new Map(rows.map((row) => [`${row.listKey}\u0000${row.entryId}`, toDismissal(row)]))
      const changed: Dismissal[] = []
      for (const match of matches) {
        const dismissal = byEntry.get(`${match.list_key}\u0000${match.entry_id}`)
        if (
          dismissal?.status === 'active' &&
          !stillCovers(dismissal, current(match.list_key, match.entry_id))
        )
          changed.push(dismissal)
      }
      if (changed.length > 0) {
        const stored = new Map(
          (
            await reopen(
              changed.map((dismissal) => dismissal.dismissal_id),
              ENTRY_CHANGED,
            )
          ).map((row) => [row.dismissal_id, row]),
        )
        const now = clock.now().toISOString()
        for (const dismissal of changed) {
          // Another process may have re-opened it first: it is re-opened all the same.
          byEntry.set(
            `${dismissal.list_key}\u0000${dismissal.entry_id}`,
            stored.get(dismissal.dismissal_id) ?? {
              ...dismissal,
              status: 'reopened',
              reopened_at: now,
              reopened_reason: ENTRY_CHANGED,
            },
          )
        }
      }
      return matches.map((match) => {
        const dismissal = byEntry.get(`${match.list_key}\u0000${match.entry_id}`)
        if (!dismissal) return { ...match }
        return {
          ...match,
          dismissal: matchDismissalOf(dismissal, dismissal.status === 'active' ? 'dismissed' : 'reopened'),
        }
      })
    },

    async allActive() {
      const rows = await db.select().from(sanctionsDismissals).where(eq(sanctionsDismissals.status, 'active'))
      return rows.map((row) => ({ ...toDismissal(row), key_id: row.keyId }))
    },

    reopen,
  }
}
