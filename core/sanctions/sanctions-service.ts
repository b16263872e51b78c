import { randomUUID } from 'node:crypto'
import type { Clock } from '../context.ts'
import { diffLists } from './list-diff.ts'
import { ListParseError } from './list-parse-error.ts'
import { loadListSource, parseListSource } from './list-source.ts'
import type { SanctionsListStore, StoredListVersion } from './list-store.ts'
import { buildSanctionsIndexFromEntries, type IndexedList, type SanctionsIndex } from './sanctions-index.ts'
import {
  type ScreenOptions,
  type ScreenResult,
  screenAddress,
  screenName,
  screenRegistration,
} from './sanctions-screen.ts'
import { LIST_DISPLAY_NAMES, LIST_KEYS, type ListKey, type ParsedList, type SanctionsEntry } from './types.ts'

/**
 * The sanctions lists as a running service: the in-memory index over the newest stored version
 * of each list, loaded from the database at start-up (no download, no parse), a background
 * refresh from the configured sources (daily by default; one process at a time through a lease
 * row), a version and diff recorded for every change, and the screening API every check calls.
 * A refresh that fails (download error, corrupt or truncated file) keeps the previous version
 * in use; the list note then says how old it is (issue 3, list lifecycle).
 */

export type SanctionsLog = (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void

export interface SanctionsServiceOptions {
  store: SanctionsListStore
  clock: Clock
  /**
   * Where each list is read from: an http(s) URL or a file path (.bz2 accepted). A list without
   * a source is never refreshed; it is still served from the database when a version is stored.
   */
  sources: Partial<Record<ListKey, string>>
  /** Injected fetch for URL sources (default: the global fetch). */
  fetch?: typeof globalThis.fetch
  /** Whole-download timeout per list (default 5 minutes: the OFAC file is about 120 MB). */
  downloadTimeoutMs?: number
  /** How old a list may get before the next refresh reads its source again (default 24 h). */
  refreshIntervalMs?: number
  /** How often the service looks for due lists and for versions other processes stored (default 1 h). */
  checkIntervalMs?: number
  /** Delay of the first background pass after start (default 2 s), so start-up never waits on a download. */
  startupRefreshDelayMs?: number
  /** A list not confirmed current for this long is reported stale in the list note (default 1.5 x refresh interval). */
  staleAfterMs?: number
  /** Versions kept per list (default 10); diffs are kept regardless. */
  keepVersions?: number
  /** Lifetime of the refresh lease (default 15 minutes), renewed before each list. */
  leaseMs?: number
  /**
   * A new version with fewer than this share of the previous version's entries is refused as a
   * probable partial file (default 0.5); the previous version stays in use.
   */
  minRetainedShare?: number
  /** Identifies this process as lease holder (default: a random UUID). */
  instanceId?: string
  log?: SanctionsLog
}

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

export type ListRefreshStatus = 'updated' | 'unchanged' | 'failed' | 'not_due' | 'not_configured'

export interface ListRefreshOutcome {
  list_key: ListKey
  status: ListRefreshStatus
  version_id?: string
  publication_date?: string | null
  entry_count?: number
  diff?: { id: string; added: number; removed: number; changed: number }
  /** Why a refresh failed (the previous version, if any, stays in use). */
  error?: string
}

export interface RefreshReport {
  /** False when the pass did not run: another process holds the lease, no source is configured, or stopping. */
  ran: boolean
  skipped?: 'lease_held' | 'no_sources' | 'stopped'
  lists: ListRefreshOutcome[]
}

/** Per list, for operators (health, logs). */
export interface SanctionsListStatus {
  list_key: ListKey
  list: string
  configured: boolean
  loaded: LoadedList | null
  stale: boolean
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
  refresh(options?: { force?: boolean; lists?: readonly ListKey[] }): Promise<RefreshReport>
  /** Picks up versions another process stored. Returns true when the index changed. */
  reloadFromStore(): Promise<boolean>
  /** True when at least one list is loaded. */
  ready(): boolean
  /** The lists held now (in LIST_KEYS order). */
  loadedLists(): LoadedList[]
  /** Screens a person or company name (spec: POST /v1/sanctions/screen). */
  screenName(name: string, options?: ScreenOptions): SanctionsScreening
  /** Screens a wallet address against the OFAC digital currency addresses. */
  screenAddress(address: string, options?: Pick<ScreenOptions, 'limit'>): SanctionsScreening
  /** Screens a company registration number; `country` orders and weighs, never excludes. */
  screenRegistration(
    number: string,
    country?: string,
    options?: Pick<ScreenOptions, 'limit'>,
  ): SanctionsScreening
  /** The `list_note` of a screen result: dates of the lists, and how old a list is when refreshes fail. */
  listNote(): string
  status(): SanctionsListStatus[]
}

const HOUR = 3_600_000
const LEASE_NAME = 'sanctions_refresh'

interface HeldList {
  version: StoredListVersion
  entries: SanctionsEntry[]
}

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

/** Builds the sanctions service over a list store; nothing runs until `start()`. */
export function createSanctionsService(options: SanctionsServiceOptions): SanctionsService {
  const { store, clock } = options
  const log: SanctionsLog = options.log ?? (() => {})
  const refreshIntervalMs = options.refreshIntervalMs ?? 24 * HOUR
  const checkIntervalMs = options.checkIntervalMs ?? HOUR
  const staleAfterMs = options.staleAfterMs ?? refreshIntervalMs * 1.5
  const keepVersions = options.keepVersions ?? 10
  const leaseMs = options.leaseMs ?? 15 * 60_000
  const minRetainedShare = options.minRetainedShare ?? 0.5
  const instanceId = options.instanceId ?? randomUUID()
  const sources = Object.fromEntries(
    LIST_KEYS.flatMap((key) => {
      const source = options.sources[key]?.trim()
      return source ? [[key, source]] : []
    }),
  ) as Partial<Record<ListKey, string>>
  const hasSources = Object.keys(sources).length > 0

  const abort = new AbortController()
  const baseFetch = options.fetch ?? globalThis.fetch
  const fetchImpl: typeof globalThis.fetch = (input, init) =>
    baseFetch(input, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, abort.signal]) : abort.signal,
    })

  const held = new Map<ListKey, HeldList>()
  const attempts = new Map<ListKey, { at: Date; error: string | null }>()
  let index: SanctionsIndex | undefined
  let stopped = false
  let chain: Promise<unknown> = Promise.resolve()
  let busy = false
  let startupTimer: NodeJS.Timeout | undefined
  let checkTimer: NodeJS.Timeout | undefined
  let startupDone: Promise<void> = Promise.resolve()
  let finishStartup: () => void = () => {}

  /** Runs `task` after every earlier task of this process (one pass at a time per process). */
  function serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = chain.then(async () => {
      busy = true
      try {
        return await task()
      } finally {
        busy = false
      }
    })
    chain = run.catch(() => {})
    return run
  }

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

  function rebuildIndex(): void {
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

  function screening(run: (index: SanctionsIndex) => ScreenResult): SanctionsScreening {
    const current = index
    if (!current) return { status: 'unavailable', reason: 'sanctions_lists_not_loaded', note: listNote() }
    return { status: 'ok', ...run(current), lists: loadedLists(), note: listNote() }
  }

  async function reloadFromStore(): Promise<boolean> {
    const latest = await store.latest()
    let changed = false
    for (const version of latest) {
      if (!(LIST_KEYS as readonly string[]).includes(version.list_key)) continue
      const current = held.get(version.list_key)
      if (current && current.version.id === version.id) {
        current.version = version
        continue
      }
      const entries = await store.readEntries(version.id)
      if (!entries) continue
      held.set(version.list_key, { version, entries })
      changed = true
    }
    if (changed) rebuildIndex()
    return changed
  }

  function asParsed(list: HeldList): ParsedList {
    return {
      list_key: list.version.list_key,
      publication_date: list.version.publication_date,
      format: list.version.format,
      entries: list.entries,
      entry_count: list.entries.length,
    }
  }

  async function refreshList(
    key: ListKey,
    source: string,
    latest: StoredListVersion | undefined,
  ): Promise<ListRefreshOutcome> {
    const startedAt = clock.now()
    try {
      const content = await loadListSource(source, {
        fetch: fetchImpl,
        ...(options.downloadTimeoutMs ? { timeoutMs: options.downloadTimeoutMs } : {}),
      })
      if (content.list_key !== key) {
        throw new ListParseError(
          key,
          content.format,
          `the configured source holds the ${content.list_key} list`,
        )
      }
      if (latest && content.sha256 === latest.sha256) {
        if (stopped) return { list_key: key, status: 'failed', error: 'stopped' }
        const checkedAt = clock.now()
        await store.markChecked(latest.id, checkedAt, source)
        const current = held.get(key)
        if (current?.version.id === latest.id) {
          current.version = { ...current.version, checked_at: checkedAt, source }
        }
        attempts.set(key, { at: startedAt, error: null })
        return {
          list_key: key,
          status: 'unchanged',
          version_id: latest.id,
          publication_date: latest.publication_date,
          entry_count: latest.entry_count,
        }
      }
      const parsed = await parseListSource(content)
      if (stopped) return { list_key: key, status: 'failed', error: 'stopped' }
      let previous = held.get(key)
      if (latest && previous?.version.id !== latest.id) {
        const entries = await store.readEntries(latest.id)
        previous = entries ? { version: latest, entries } : undefined
      }
      if (previous && parsed.entry_count < previous.entries.length * minRetainedShare) {
        throw new ListParseError(
          key,
          parsed.format,
          `the new file has ${parsed.entry_count} entries against ${previous.entries.length} in the version in use; refused as a probable partial file`,
        )
      }
      const diff = previous ? diffLists(asParsed(previous), parsed) : undefined
      const saved = await store.saveVersion({
        list: parsed,
        sha256: content.sha256,
        source,
        fetchedAt: clock.now(),
        ...(previous && diff ? { diff: { fromVersion: previous.version.id, diff } } : {}),
        keep: keepVersions,
      })
      held.set(key, { version: saved.version, entries: parsed.entries })
      attempts.set(key, { at: startedAt, error: null })
      const outcome: ListRefreshOutcome = {
        list_key: key,
        status: 'updated',
        version_id: saved.version.id,
        publication_date: saved.version.publication_date,
        entry_count: saved.version.entry_count,
        ...(saved.diff
          ? {
              diff: {
                id: saved.diff.id,
                added: saved.diff.added_count,
                removed: saved.diff.removed_count,
                changed: saved.diff.changed_count,
              },
            }
          : {}),
      }
      log('info', 'sanctions list updated', outcome)
      return outcome
    } catch (error) {
      const message = errorText(error)
      attempts.set(key, { at: startedAt, error: message })
      log('warn', 'sanctions list refresh failed; the previous version stays in use', {
        list_key: key,
        error: message,
      })
      return { list_key: key, status: 'failed', error: message }
    }
  }

  async function pass(force: boolean, only: readonly ListKey[] | undefined): Promise<RefreshReport> {
    if (stopped) return { ran: false, skipped: 'stopped', lists: [] }
    const wanted = LIST_KEYS.filter((key) => !only || only.includes(key))
    const notConfigured = wanted
      .filter((key) => !sources[key])
      .map((key): ListRefreshOutcome => ({ list_key: key, status: 'not_configured' }))
    const configured = wanted.filter((key) => sources[key])
    if (configured.length === 0) {
      await reloadFromStore()
      return { ran: false, skipped: 'no_sources', lists: notConfigured }
    }
    if (!(await store.claimLease(LEASE_NAME, instanceId, leaseMs))) {
      await reloadFromStore()
      return { ran: false, skipped: 'lease_held', lists: notConfigured }
    }
    const outcomes: ListRefreshOutcome[] = []
    try {
      await reloadFromStore()
      const latest = new Map((await store.latest()).map((version) => [version.list_key, version]))
      let changed = false
      for (const key of configured) {
        if (stopped) break
        const source = sources[key]!
        const version = latest.get(key)
        const due =
          force ||
          !version ||
          version.source !== source ||
          clock.now().getTime() - version.checked_at.getTime() >= refreshIntervalMs
        if (!due) {
          outcomes.push({
            list_key: key,
            status: 'not_due',
            version_id: version.id,
            publication_date: version.publication_date,
            entry_count: version.entry_count,
          })
          continue
        }
        if (!(await store.claimLease(LEASE_NAME, instanceId, leaseMs))) {
          outcomes.push({
            list_key: key,
            status: 'failed',
            error: 'the refresh lease was lost to another process',
          })
          break
        }
        const outcome = await refreshList(key, source, version)
        if (outcome.status === 'updated') changed = true
        outcomes.push(outcome)
      }
      if (changed) rebuildIndex()
    } finally {
      await store.releaseLease(LEASE_NAME, instanceId).catch(() => {})
    }
    return { ran: true, lists: [...outcomes, ...notConfigured] }
  }

  function backgroundPass(): Promise<void> {
    if (stopped || busy) return Promise.resolve()
    return serialised(() => pass(false, undefined)).then(
      () => {},
      (error) => log('warn', 'sanctions background pass failed', errorText(error)),
    )
  }

  return {
    async start() {
      try {
        const started = performance.now()
        await serialised(reloadFromStore)
        const lists = loadedLists()
        if (lists.length > 0) {
          log('info', 'sanctions lists loaded from the database', {
            lists: lists.map((list) => ({
              list_key: list.list_key,
              as_of: list.as_of,
              entries: list.entry_count,
            })),
            ms: Math.round(performance.now() - started),
          })
        }
      } catch (error) {
        log('warn', 'sanctions lists not loaded from the database', errorText(error))
      }
      if (stopped) return
      if (hasSources) {
        startupDone = new Promise<void>((resolve) => {
          finishStartup = resolve
        })
        startupTimer = setTimeout(() => {
          void backgroundPass().finally(finishStartup)
        }, options.startupRefreshDelayMs ?? 2000)
        startupTimer.unref()
      }
      checkTimer = setInterval(() => void backgroundPass(), checkIntervalMs)
      checkTimer.unref()
    },

    async stop() {
      stopped = true
      if (startupTimer) clearTimeout(startupTimer)
      if (checkTimer) clearInterval(checkTimer)
      finishStartup()
      abort.abort()
      await chain
    },

    async idle() {
      await startupDone
      await chain
    },

    refresh(refreshOptions = {}) {
      return serialised(() => pass(refreshOptions.force ?? false, refreshOptions.lists))
    },

    reloadFromStore: () => serialised(reloadFromStore),

    ready: () => index !== undefined,

    loadedLists,

    screenName: (name, screenOptions) => screening((current) => screenName(current, name, screenOptions)),

    screenAddress: (address, screenOptions) =>
      screening((current) => screenAddress(current, address, screenOptions)),

    screenRegistration: (number, country, screenOptions) =>
      screening((current) => screenRegistration(current, number, country, screenOptions)),

    listNote,

    status() {
      const now = clock.now()
      return LIST_KEYS.map((key) => {
        const attempt = attempts.get(key)
        return {
          list_key: key,
          list: LIST_DISPLAY_NAMES[key],
          configured: Boolean(sources[key]),
          loaded: loaded(key),
          stale: isStale(key, now),
          last_attempt_at: attempt?.at ?? null,
          last_error: attempt?.error ?? null,
        }
      })
    },
  }
}
