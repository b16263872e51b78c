import { DEFAULT_MAX_LIST_AGE_DAYS, type ListState, type SanctionsCoverage } from './coverage.ts'
import type { FuzzyScreenOptions } from './fuzzy-screen.ts'
import {
  createListRefresher,
  DEFAULT_REFRESH_INTERVAL_MS,
  type ListRefresherOptions,
  type RefreshOptions,
  type RefreshReport,
} from './list-refresher.ts'
import type { ScreenOptions } from './sanctions-screen.ts'
import {
  createScreeningIndex,
  type FuzzyScreening,
  type LoadedList,
  type SanctionsScreening,
} from './screening-index.ts'
import { LIST_DISPLAY_NAMES, LIST_KEYS, type ListKey, type SanctionsEntry } from './types.ts'

export type {
  ListProgressEvent,
  ListRefreshOutcome,
  ListRefreshStatus,
  RefreshReport,
} from './list-refresher.ts'
export type { FuzzyScreening, LoadedList, SanctionsLog, SanctionsScreening } from './screening-index.ts'

/**
 * The sanctions lists as a running service: the in-memory index over the newest stored version
 * of each list, loaded from the database at start-up (no download, no parse), a background
 * refresh from the configured sources (daily by default; one process at a time through a lease
 * row), a version and diff recorded for every change, and the screening API every check calls.
 * A refresh that fails (download error, corrupt or truncated file) keeps the previous version
 * in use; the list note then says how old it is.
 *
 * This file only wires the two halves: screening-index.ts (the lists held in memory and the
 * screens) and list-refresher.ts (start-up load, refresh passes, lease, versions and diffs).
 */

export interface SanctionsServiceOptions extends ListRefresherOptions {
  /** A list not confirmed current for this long is reported stale in the list note (default 1.5 x refresh interval). */
  staleAfterMs?: number
  /** Days since publication after which a list is stale (default DEFAULT_MAX_LIST_AGE_DAYS: OFAC 7, EU and UN 30). */
  maxAgeDays?: Partial<Record<ListKey, number>>
}

/** Per list, for operators (health, logs). */
export interface SanctionsListStatus {
  list_key: ListKey
  list: string
  configured: boolean
  loaded: LoadedList | null
  /** loaded, or why not: loading (first read pending), not_configured, load_failed. */
  state: ListState['state']
  /** Whole days since the loaded version's publication (else fetch) date; null when none is loaded. */
  age_days: number | null
  max_age_days: number
  stale: boolean
  /** Why the loaded copy is stale (too old, refresh failing, not confirmed); null when current. */
  stale_reason: string | null
  last_attempt_at: Date | null
  last_error: string | null
}

export interface SanctionsService {
  /** Loads the newest stored versions (awaited, under a second), then schedules background refreshes. */
  start(): Promise<void>
  /** Stops the timers, aborts downloads and waits for a running pass. */
  stop(): Promise<void>
  /** Resolves when the start-up pass (if scheduled) and any running pass are done. */
  idle(): Promise<void>
  /**
   * One refresh pass now, under the lease: lists whose last check is older than the refresh
   * interval (or all configured lists with `force`) are read from their sources.
   */
  refresh(options?: RefreshOptions): Promise<RefreshReport>
  /** Picks up versions another process stored. Returns true when the index changed. */
  reloadFromStore(): Promise<boolean>
  /** True when at least one list is loaded. */
  ready(): boolean
  /** The lists held now (in LIST_KEYS order). */
  loadedLists(): LoadedList[]
  /** Screens a person or company name (spec: POST /v1/sanctions/screen). */
  screenName(name: string, options?: ScreenOptions): SanctionsScreening
  /** Fuzzy name screen: spelling variants, transliterations, typos, with a score breakdown. */
  screenNameFuzzy(name: string, options?: FuzzyScreenOptions): FuzzyScreening
  /** Screens a wallet address against the OFAC digital currency addresses. */
  screenAddress(address: string, options?: Pick<ScreenOptions, 'limit'>): SanctionsScreening
  /** Screens a company registration number; `country` orders and weighs, never excludes. */
  screenRegistration(
    number: string,
    country?: string,
    options?: Pick<ScreenOptions, 'limit'>,
  ): SanctionsScreening
  /** The entry screens see now by list and id (dismissal fingerprints); undefined when not listed. */
  entry(list: ListKey, entryId: string): SanctionsEntry | undefined
  /** The `list_note` of a screen result: dates and ages of the lists, which are stale and which are missing. */
  listNote(): string
  /** Every list's state now (loaded with its age, loading, not configured, load failed). */
  listStates(): ListState[]
  /** The coverage a screen promising `promised` would have now (readiness checks, reports). */
  coverage(promised: readonly ListKey[]): SanctionsCoverage
  status(): SanctionsListStatus[]
}

/** Builds the sanctions service over a list store; nothing runs until `start()`. */
export function createSanctionsService(options: SanctionsServiceOptions): SanctionsService {
  const { clock } = options
  const refreshIntervalMs = options.refreshIntervalMs ?? DEFAULT_REFRESH_INTERVAL_MS
  const lists = createScreeningIndex({
    clock,
    staleAfterMs: options.staleAfterMs ?? refreshIntervalMs * 1.5,
    refreshIntervalMs,
    configured: (key) => Boolean(options.sources[key]?.trim()),
    ...(options.maxAgeDays ? { maxAgeDays: options.maxAgeDays } : {}),
    ...(options.log ? { log: options.log } : {}),
  })
  const refresher = createListRefresher(lists, options)

  return {
    start: refresher.start,
    stop: refresher.stop,
    idle: refresher.idle,
    refresh: refresher.refresh,
    reloadFromStore: refresher.reloadFromStore,
    ready: lists.ready,
    loadedLists: lists.loadedLists,
    screenName: lists.screenName,
    screenNameFuzzy: lists.screenNameFuzzy,
    screenAddress: lists.screenAddress,
    screenRegistration: lists.screenRegistration,
    entry: lists.entry,
    listNote: lists.listNote,
    listStates: lists.listStates,
    coverage: lists.coverage,

    status() {
      const states = lists.listStates()
      return LIST_KEYS.map((key) => {
        const attempt = lists.lastAttempt(key)
        const state = states.find((candidate) => candidate.list_key === key)!
        const loaded = state.state === 'loaded' ? state : undefined
        return {
          list_key: key,
          list: LIST_DISPLAY_NAMES[key],
          configured: refresher.configured(key),
          loaded: lists.loaded(key),
          state: state.state,
          age_days: loaded?.age_days ?? null,
          max_age_days: loaded?.max_age_days ?? options.maxAgeDays?.[key] ?? DEFAULT_MAX_LIST_AGE_DAYS[key],
          stale: loaded?.stale ?? false,
          stale_reason: loaded?.stale_reason ?? null,
          last_attempt_at: attempt?.at ?? null,
          last_error: attempt?.error ?? null,
        }
      })
    },
  }
}
