import type { Clock } from '../context.ts'
import {
  type FuzzyScreenOptions,
  type FuzzyScreenResult,
  fuzzyIndexOf,
  screenNameFuzzy,
} from './fuzzy-screen.ts'
import type { StoredListVersion } from './list-store.ts'
import { buildSanctionsIndexFromEntries, type IndexedList, type SanctionsIndex } from './sanctions-index.ts'
import {
  type ScreenOptions,
  type ScreenResult,
  screenAddress,
  screenName,
  screenRegistration,
} from './sanctions-screen.ts'
import { LIST_DISPLAY_NAMES, LIST_KEYS, type ListKey, type SanctionsEntry } from './types.ts'

/**
 * The screening side of the sanctions service: the list versions held in memory, the index
 * over them, and the screens every check calls. It never reads a source or the database; the
 * list refresher (list-refresher.ts) hands it versions and tells it how each refresh went, so
 * the list note can say how old a list is when refreshes fail.
 */

export type SanctionsLog = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

/** A list version held in memory. */
export interface LoadedList {
  list_key: ListKey
  /** Display name (`list` of a match, `lists_checked`). */
  list: string
  version_id: string
  publication_date: string | null
  /** The date list_dates reports: the publication date, else the day the version was fetched. */
  as_of: string
  sha256: string
  entry_count: number
  fetched_at: Date
  /** When a refresh last confirmed this version current. */
  checked_at: Date
}

/** What a screen against the held lists gives: matches, or `unavailable` (never clean). */
export type SanctionsScreening =
  | (ScreenResult & { status: 'ok'; lists: LoadedList[]; note: string })
  | { status: 'unavailable'; reason: 'sanctions_lists_not_loaded'; note: string }

/** A fuzzy screen against the held lists: matches with score breakdowns, or `unavailable`. */
export type FuzzyScreening =
  | (FuzzyScreenResult & { status: 'ok'; lists: LoadedList[]; note: string })
  | { status: 'unavailable'; reason: 'sanctions_lists_not_loaded'; note: string }

/** A stored list version and its entries, as held for screening. */
export interface HeldList {
  version: StoredListVersion
  entries: SanctionsEntry[]
}

/** The last refresh attempt of a list: when it started, and why it failed (null: it worked). */
export interface RefreshAttempt {
  at: Date
  error: string | null
}

export interface ScreeningIndexOptions {
  clock: Clock
  /** A list not confirmed current for this long is reported stale in the list note. */
  staleAfterMs: number
  log?: SanctionsLog
}

export interface ScreeningIndex {
  /** The version held for a list, with its entries (the base of the next diff). */
  held(key: ListKey): HeldList | undefined
  /** Holds a new version of a list; screens see it after the next `rebuild()`. */
  hold(key: ListKey, list: HeldList): void
  /**
   * Takes a newer row of the version already held (same id: a later `checked_at`, another
   * source); the entries, and so the index, stay. Ignored when another version is held.
   */
  updateVersion(version: StoredListVersion): void
  /** Rebuilds the index over the held lists; on failure the previous index stays in use. */
  rebuild(): void
  /** Records how a refresh of a list went, for the list note and the status. */
  recordAttempt(key: ListKey, attempt: RefreshAttempt): void
  lastAttempt(key: ListKey): RefreshAttempt | undefined
  /** True when at least one list is indexed. */
  ready(): boolean
  loaded(key: ListKey): LoadedList | null
  /** The lists held now (in LIST_KEYS order). */
  loadedLists(): LoadedList[]
  /** A held list not confirmed current for too long, or whose latest refresh failed. */
  isStale(key: ListKey, now: Date): boolean
  /** The `list_note` of a screen result: dates of the lists, and how old a list is when refreshes fail. */
  listNote(): string
  screenName(name: string, options?: ScreenOptions): SanctionsScreening
  /** Fuzzy name screen (NAME_MATCHING.md, "Fuzzy mode") over the same lists. */
  screenNameFuzzy(name: string, options?: FuzzyScreenOptions): FuzzyScreening
  screenAddress(address: string, options?: Pick<ScreenOptions, 'limit'>): SanctionsScreening
  screenRegistration(
    number: string,
    country?: string,
    options?: Pick<ScreenOptions, 'limit'>,
  ): SanctionsScreening
}

const HOUR = 3_600_000

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10)
}

function describeAge(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000))
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`
  const hours = Math.round(ms / HOUR)
  if (hours < 48) return `${hours} hours`
  return `${Math.floor(ms / (24 * HOUR))} days`
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Builds the empty screening index: until a list is held and indexed, every screen answers
 * `unavailable` / `sanctions_lists_not_loaded`, never clean. Kept apart from the refresher so
 * what a screen answers can be read (and tested) without downloads, leases or timers.
 */
export function createScreeningIndex(options: ScreeningIndexOptions): ScreeningIndex {
  const { clock, staleAfterMs } = options
  const log: SanctionsLog = options.log ?? (() => {})
  const held = new Map<ListKey, HeldList>()
  const attempts = new Map<ListKey, RefreshAttempt>()
  let index: SanctionsIndex | undefined

  function loaded(key: ListKey): LoadedList | null {
    const list = held.get(key)
    if (!list) return null
    const { version } = list
    return {
      list_key: key,
      list: LIST_DISPLAY_NAMES[key],
      version_id: version.id,
      publication_date: version.publication_date,
      as_of: version.publication_date ?? dayOf(version.fetched_at),
      sha256: version.sha256,
      entry_count: version.entry_count,
      fetched_at: version.fetched_at,
      checked_at: version.checked_at,
    }
  }

  function loadedLists(): LoadedList[] {
    return LIST_KEYS.map(loaded).filter((list): list is LoadedList => list !== null)
  }

  function rebuild(): void {
    const keys = LIST_KEYS.filter((key) => held.has(key))
    const entries: SanctionsEntry[] = []
    const lists: IndexedList[] = []
    for (const key of keys) {
      const list = held.get(key)!
      for (const entry of list.entries) entries.push(entry)
      lists.push({
        list_key: key,
        list: LIST_DISPLAY_NAMES[key],
        publication_date: list.version.publication_date,
        entry_count: list.version.entry_count,
      })
    }
    try {
      index = keys.length > 0 ? buildSanctionsIndexFromEntries(entries, lists) : undefined
      // The fuzzy index is built on the first fuzzy screen; building it right after the
      // rebuild (off the caller's stack) keeps that first screen fast.
      const built = index
      if (built) setTimeout(() => fuzzyIndexOf(built), 0).unref?.()
    } catch (error) {
      log('error', 'sanctions index not rebuilt; the previous index stays in use', errorText(error))
    }
  }

  function isStale(key: ListKey, now: Date): boolean {
    const list = held.get(key)
    if (!list) return false
    const attempt = attempts.get(key)
    const failedSince = attempt?.error != null && attempt.at.getTime() >= list.version.checked_at.getTime()
    return failedSince || now.getTime() - list.version.checked_at.getTime() > staleAfterMs
  }

  function listNote(): string {
    const now = clock.now()
    const lists = loadedLists()
    if (lists.length === 0) {
      return 'No sanctions list is loaded yet; nothing can be screened until the first list version is loaded.'
    }
    const parts = [
      `Lists refreshed daily; ${lists.map((list) => `${list.list} as of ${list.as_of}`).join(', ')}.`,
    ]
    for (const list of lists) {
      if (!isStale(list.list_key, now)) continue
      const failed = attempts.get(list.list_key)?.error != null
      parts.push(
        `${list.list}: the copy in use was last refreshed ${describeAge(now.getTime() - list.checked_at.getTime())} ago (${dayOf(list.checked_at)}); ${failed ? 'the latest refresh failed' : 'no refresh has succeeded since'}, so it may be out of date.`,
      )
    }
    const missing = LIST_KEYS.filter((key) => !held.has(key)).map((key) => LIST_DISPLAY_NAMES[key])
    if (missing.length > 0) parts.push(`Not loaded, so not checked: ${missing.join(', ')}.`)
    return parts.join(' ')
  }

  function fuzzyScreening(run: (index: SanctionsIndex) => FuzzyScreenResult): FuzzyScreening {
    const current = index
    if (!current) return { status: 'unavailable', reason: 'sanctions_lists_not_loaded', note: listNote() }
    return { status: 'ok', ...run(current), lists: loadedLists(), note: listNote() }
  }

  function screening(run: (index: SanctionsIndex) => ScreenResult): SanctionsScreening {
    const current = index
    if (!current) return { status: 'unavailable', reason: 'sanctions_lists_not_loaded', note: listNote() }
    return { status: 'ok', ...run(current), lists: loadedLists(), note: listNote() }
  }

  return {
    held: (key) => held.get(key),
    hold(key, list) {
      held.set(key, list)
    },
    updateVersion(version) {
      const current = held.get(version.list_key)
      if (current?.version.id === version.id) current.version = version
    },
    rebuild,
    recordAttempt(key, attempt) {
      attempts.set(key, attempt)
    },
    lastAttempt: (key) => attempts.get(key),
    ready: () => index !== undefined,
    loaded,
    loadedLists,
    isStale,
    listNote,
    screenName: (name, screenOptions) => screening((current) => screenName(current, name, screenOptions)),
    screenNameFuzzy: (name, screenOptions) =>
      fuzzyScreening((current) => screenNameFuzzy(current, name, screenOptions)),
    screenAddress: (address, screenOptions) =>
      screening((current) => screenAddress(current, address, screenOptions)),
    screenRegistration: (number, country, screenOptions) =>
      screening((current) => screenRegistration(current, number, country, screenOptions)),
  }
}
