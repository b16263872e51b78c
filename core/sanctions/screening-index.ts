import type { Clock } from '../context.ts'
import {
  ADDRESS_SCREEN_LISTS,
  coverageOf,
  DEFAULT_MAX_LIST_AGE_DAYS,
  daysSince,
  type ListState,
  NAME_SCREEN_LISTS,
  pastMaxAge,
  type SanctionsCoverage,
} from './coverage.ts'
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
import { shareRepeatedValues } from './shared-values.ts'
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

/**
 * What a screen against the held lists gives: matches with the coverage of the lists the screen
 * promises (a name screen all three, an address screen OFAC SDN), or `unavailable` (never clean).
 */
export type SanctionsScreening = Screening<ScreenResult>

/** A fuzzy screen against the held lists: matches with score breakdowns, or `unavailable`. */
export type FuzzyScreening = Screening<FuzzyScreenResult>

/** A screen's matches with the lists it read, or `unavailable` when no list is held. */
type Screening<Result> =
  | (Result & { status: 'ok'; lists: LoadedList[]; note: string; coverage: SanctionsCoverage })
  | {
      status: 'unavailable'
      reason: 'sanctions_lists_not_loaded'
      note: string
      coverage: SanctionsCoverage
    }

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
  /** Days since publication after which a list is stale (default DEFAULT_MAX_LIST_AGE_DAYS). */
  maxAgeDays?: Partial<Record<ListKey, number>>
  /** Whether a list has a refresh source (default: none has); shapes the note and the reason a list is missing. */
  configured?: (key: ListKey) => boolean
  /** How often lists with a source are re-read (for the note); default 24 h. */
  refreshIntervalMs?: number
  log?: SanctionsLog
}

export interface ScreeningIndex {
  /** The version held for a list, with its entries (the base of the next diff). */
  held(key: ListKey): HeldList | undefined
  /**
   * Holds a new version of a list; screens see it after the next `rebuild()`. Its entries keep one
   * copy of each repeated value (shared-values.ts): the entries are updated in place, no value changes.
   */
  hold(key: ListKey, list: HeldList): void
  /**
   * Takes a newer row of the version already held (same id: a later `checked_at`, another
   * source); the entries, and so the index, stay. Ignored when another version is held.
   */
  updateVersion(version: StoredListVersion): void
  /** Rebuilds the index over the held lists; on failure the previous index stays in use. */
  rebuild(): void
  /** Cancels a pending fuzzy-index warm-up (the service is stopping). */
  dispose(): void
  /** Records how a refresh of a list went, for the list note and the status. */
  recordAttempt(key: ListKey, attempt: RefreshAttempt): void
  lastAttempt(key: ListKey): RefreshAttempt | undefined
  /** True when at least one list is indexed. */
  ready(): boolean
  loaded(key: ListKey): LoadedList | null
  /** The lists held now (in LIST_KEYS order). */
  loadedLists(): LoadedList[]
  /**
   * A held list published longer ago than its threshold, not confirmed current for too long, or
   * whose latest refresh failed.
   */
  isStale(key: ListKey, now: Date): boolean
  /** Why a held list is stale, null when it is not (or not held). */
  staleReason(key: ListKey, now: Date): string | null
  /** Every list's state now: loaded (with age), loading, not configured or failed to load. */
  listStates(): ListState[]
  /** The coverage a screen promising `promised` has now. */
  coverage(promised: readonly ListKey[]): SanctionsCoverage
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
  /** The entry screens see now (the indexed version) by list and id; undefined when not listed. */
  entry(list: ListKey, entryId: string): SanctionsEntry | undefined
}

/** Entries of an index by `list\u0000entry_id`, built on first use and dropped with the index. */
const entriesById = new WeakMap<SanctionsIndex, Map<string, SanctionsEntry>>()

function entryOf(index: SanctionsIndex, list: ListKey, entryId: string): SanctionsEntry | undefined {
  let byId = entriesById.get(index)
  if (!byId) {
    byId = new Map(index.entries.map((entry) => [`${entry.list}\u0000${entry.entry_id}`, entry]))
    entriesById.set(index, byId)
  }
  return byId.get(`${list}\u0000${entryId}`)
}

const HOUR = 3_600_000

/** Quiet time after the last index rebuild before the fuzzy index is built ahead of use. */
const FUZZY_WARMUP_DELAY_MS = 2_000

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
  const maxAgeDays = { ...DEFAULT_MAX_LIST_AGE_DAYS, ...options.maxAgeDays }
  const configured = options.configured ?? (() => false)
  const refreshHours = Math.round((options.refreshIntervalMs ?? 24 * HOUR) / HOUR)
  const log: SanctionsLog = options.log ?? (() => {})
  const held = new Map<ListKey, HeldList>()
  const attempts = new Map<ListKey, RefreshAttempt>()
  let index: SanctionsIndex | undefined
  let warmup: ReturnType<typeof setTimeout> | undefined

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
      warmFuzzyIndex()
    } catch (error) {
      log('error', 'sanctions index not rebuilt; the previous index stays in use', errorText(error))
    }
  }

  /**
   * The fuzzy index is built on the first fuzzy screen; building it ahead keeps that screen fast.
   * It is built once the lists have settled (no rebuild for FUZZY_WARMUP_DELAY_MS) and only for
   * the index still in use: at start-up the lists load one after another, and an index replaced
   * a moment later is not worth seconds of CPU (all three lists: about 4 s).
   */
  function warmFuzzyIndex(): void {
    if (warmup) clearTimeout(warmup)
    const built = index
    if (!built) return
    warmup = setTimeout(() => {
      warmup = undefined
      if (index === built) fuzzyIndexOf(built)
    }, FUZZY_WARMUP_DELAY_MS)
    warmup.unref?.()
  }

  function staleReason(key: ListKey, now: Date): string | null {
    const list = held.get(key)
    if (!list) return null
    const attempt = attempts.get(key)
    if (attempt?.error != null && attempt.at.getTime() >= list.version.checked_at.getTime()) {
      return `the latest refresh failed (${attempt.error}); the copy in use was last confirmed ${dayOf(list.version.checked_at)}`
    }
    const asOf = list.version.publication_date ?? dayOf(list.version.fetched_at)
    const age = daysSince(asOf, now)
    if (pastMaxAge(age, maxAgeDays[key])) {
      return `${list.version.publication_date ? 'published' : 'fetched'} ${age} days ago, more than the ${maxAgeDays[key]}-day threshold for this list`
    }
    if (configured(key) && now.getTime() - list.version.checked_at.getTime() > staleAfterMs) {
      return `not confirmed current since ${dayOf(list.version.checked_at)}: no refresh has succeeded since`
    }
    return null
  }

  function isStale(key: ListKey, now: Date): boolean {
    return staleReason(key, now) !== null
  }

  function listStates(now = clock.now()): ListState[] {
    return LIST_KEYS.map((key): ListState => {
      const list = loaded(key)
      if (list) {
        const reason = staleReason(key, now)
        return {
          list_key: key,
          state: 'loaded',
          publication_date: list.publication_date,
          as_of: list.as_of,
          age_days: daysSince(list.as_of, now),
          max_age_days: maxAgeDays[key],
          stale: reason !== null,
          stale_reason: reason,
        }
      }
      if (!configured(key)) {
        return {
          list_key: key,
          state: 'not_configured',
          detail:
            'no list source is configured and no copy is stored: set its SANCTIONS_*_SOURCE, or run npm run lists:import -- <folder>',
        }
      }
      const attempt = attempts.get(key)
      if (attempt?.error != null) {
        return {
          list_key: key,
          state: 'load_failed',
          detail: `reading its source failed (${attempt.error}); retried hourly, or load a file with npm run lists:import -- <folder>`,
        }
      }
      return { list_key: key, state: 'loading', detail: 'its first version is being downloaded and parsed' }
    })
  }

  function coverage(promised: readonly ListKey[]): SanctionsCoverage {
    return coverageOf(listStates(), promised)
  }

  function listNote(): string {
    const now = clock.now()
    return listNoteOf(now, loadedLists(), listStates(now))
  }

  /** The list note at `now`, from the lists held and every list's state at that moment. */
  function listNoteOf(now: Date, lists: readonly LoadedList[], states: readonly ListState[]): string {
    if (lists.length === 0) {
      return 'No sanctions list is loaded yet; nothing can be screened until the first list version is loaded.'
    }
    const describe = (list: LoadedList) => {
      const state = states.find((candidate) => candidate.list_key === list.list_key)
      const age = state?.state === 'loaded' ? state.age_days : daysSince(list.as_of, now)
      const reason = state?.state === 'loaded' ? state.stale_reason : staleReason(list.list_key, now)
      return `${list.list} as of ${list.as_of} (${list.publication_date ? 'publication date' : 'fetch date; the file gives no publication date'}, ${age} day${age === 1 ? '' : 's'} old${reason ? `; stale: ${reason}` : ''})`
    }
    const parts = [`Lists in use: ${lists.map(describe).join(', ')}.`]
    const refreshed = lists.filter((list) => configured(list.list_key))
    const fixed = lists.filter((list) => !configured(list.list_key))
    if (refreshed.length > 0) {
      parts.push(
        `${refreshed.map((list) => list.list).join(', ')}: re-read from ${refreshed.length === 1 ? 'its source' : 'their sources'} every ${refreshHours} hours.`,
      )
    }
    if (fixed.length > 0) {
      parts.push(
        `${fixed.map((list) => list.list).join(', ')}: no refresh source configured; the stored copy is used as it is.`,
      )
    }
    for (const list of refreshed) {
      const attempt = attempts.get(list.list_key)
      const failed = attempt?.error != null && attempt.at.getTime() >= list.checked_at.getTime()
      if (!failed && now.getTime() - list.checked_at.getTime() <= staleAfterMs) continue
      parts.push(
        `${list.list}: the copy in use was last refreshed ${describeAge(now.getTime() - list.checked_at.getTime())} ago (${dayOf(list.checked_at)}); ${failed ? 'the latest refresh failed' : 'no refresh has succeeded since'}, so it may be out of date.`,
      )
    }
    const missing = states.filter((state) => state.state !== 'loaded')
    if (missing.length > 0) {
      parts.push(
        `Not loaded, so not checked: ${missing.map((state) => `${LIST_DISPLAY_NAMES[state.list_key]} (${state.state})`).join(', ')}.`,
      )
    }
    return parts.join(' ')
  }

  /**
   * What a screen reports besides its matches, read once at one moment: the lists held, the
   * list note and the coverage of the lists it promises.
   */
  function screenContext(promised: readonly ListKey[]) {
    const now = clock.now()
    const lists = loadedLists()
    const states = listStates(now)
    return { lists, note: listNoteOf(now, lists, states), coverage: coverageOf(states, promised) }
  }

  function fuzzyScreening(run: (index: SanctionsIndex) => FuzzyScreenResult): FuzzyScreening {
    const current = index
    const { lists, note, coverage: promised } = screenContext(NAME_SCREEN_LISTS)
    if (!current)
      return {
        status: 'unavailable',
        reason: 'sanctions_lists_not_loaded',
        note,
        coverage: promised,
      }
    return { status: 'ok', ...run(current), lists, note, coverage: promised }
  }

  function screening(
    promised: readonly ListKey[],
    run: (index: SanctionsIndex) => ScreenResult,
  ): SanctionsScreening {
    const current = index
    const context = screenContext(promised)
    if (!current) {
      return {
        status: 'unavailable',
        reason: 'sanctions_lists_not_loaded',
        note: context.note,
        coverage: context.coverage,
      }
    }
    return {
      status: 'ok',
      ...run(current),
      lists: context.lists,
      note: context.note,
      coverage: context.coverage,
    }
  }

  return {
    held: (key) => held.get(key),
    hold(key, list) {
      shareRepeatedValues(list.entries)
      held.set(key, list)
    },
    updateVersion(version) {
      const current = held.get(version.list_key)
      if (current?.version.id === version.id) current.version = version
    },
    rebuild,
    dispose() {
      if (warmup) clearTimeout(warmup)
      warmup = undefined
    },
    recordAttempt(key, attempt) {
      attempts.set(key, attempt)
    },
    lastAttempt: (key) => attempts.get(key),
    ready: () => index !== undefined,
    loaded,
    loadedLists,
    isStale,
    staleReason,
    listStates: () => listStates(),
    coverage,
    listNote,
    screenName: (name, screenOptions) =>
      screening(NAME_SCREEN_LISTS, (current) => screenName(current, name, screenOptions)),
    screenNameFuzzy: (name, screenOptions) =>
      fuzzyScreening((current) => screenNameFuzzy(current, name, screenOptions)),
    screenAddress: (address, screenOptions) =>
      screening(ADDRESS_SCREEN_LISTS, (current) => screenAddress(current, address, screenOptions)),
    screenRegistration: (number, country, screenOptions) =>
      screening(NAME_SCREEN_LISTS, (current) => screenRegistration(current, number, country, screenOptions)),
    entry: (list, entryId) => (index ? entryOf(index, list, entryId) : undefined),
  }
}
