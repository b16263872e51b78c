import { randomUUID } from 'node:crypto'
import type { Clock } from '../context.ts'
import { diffLists } from './list-diff.ts'
import { ListParseError } from './list-parse-error.ts'
import { type ListSource, loadListSource, parseListSource } from './list-source.ts'
import type { SanctionsListStore, StoredListVersion } from './list-store.ts'
import type { HeldList, SanctionsLog, ScreeningIndex } from './screening-index.ts'
import { LIST_KEYS, type ListKey, type ParsedList } from './types.ts'

/**
 * The lifecycle side of the sanctions service: loads the newest stored version of each list at
 * start-up (no download, no parse), refreshes from the configured sources in the background
 * (daily by default; one process at a time through a lease row), records a version and diff
 * for every change, and picks up versions other processes stored. A refresh that fails
 * (download error, corrupt or truncated file) keeps the previous version in use; the attempt is
 * recorded on the screening index, whose list note then says how old the list is.
 */

export interface ListRefresherOptions {
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
  /** Progress of a list being read: download bytes, then parse, store and done (start-up output, import bars). */
  onProgress?: (event: ListProgressEvent) => void
}

/** One step of reading a list from its source. */
export type ListProgressEvent =
  | { list_key: ListKey; phase: 'download'; received: number; total: number | null }
  | { list_key: ListKey; phase: 'parse' | 'store'; bytes: number }
  | { list_key: ListKey; phase: 'done'; status: ListRefreshStatus; entry_count?: number; error?: string }

/**
 * `refused_older`: the source holds a version published before the one in use; it is not
 * loaded (unless the refresh accepts older versions) and raises no alert.
 */
export type ListRefreshStatus =
  | 'updated'
  | 'unchanged'
  | 'failed'
  | 'refused_older'
  | 'not_due'
  | 'not_configured'

export interface ListRefreshOutcome {
  list_key: ListKey
  status: ListRefreshStatus
  version_id?: string
  publication_date?: string | null
  entry_count?: number
  diff?: { id: string; added: number; removed: number; changed: number }
  /** Why a refresh failed or was refused (the previous version, if any, stays in use). */
  error?: string
}

/** Options of one refresh pass. */
export interface RefreshOptions {
  /** Read every configured list now, due or not. */
  force?: boolean
  /** Only these lists. */
  lists?: readonly ListKey[]
  /**
   * Load a version published before the one in use (an operator rolling back on purpose). It is
   * stored without a diff against the newer version, so it raises no alert.
   */
  acceptOlder?: boolean
}

export interface RefreshReport {
  /** False when the pass did not run: another process holds the lease, no source is configured, or stopping. */
  ran: boolean
  skipped?: 'lease_held' | 'no_sources' | 'stopped'
  lists: ListRefreshOutcome[]
}

export interface ListRefresher {
  /** Loads the newest stored versions (awaited, under a second), then schedules background refreshes. */
  start(): Promise<void>
  /** Stops the timers, aborts downloads and waits for a running pass. */
  stop(): Promise<void>
  /** Resolves when the start-up pass (if scheduled) and any running pass are done. */
  idle(): Promise<void>
  /**
   * One refresh pass now, under the lease: lists whose last check is older than the refresh
   * interval (or all configured lists with `force`) are read from their sources. A version
   * published before the one in use is refused (`refused_older`) unless `acceptOlder`.
   */
  refresh(options?: RefreshOptions): Promise<RefreshReport>
  /** Picks up versions another process stored. Returns true when the index changed. */
  reloadFromStore(): Promise<boolean>
  /** Whether a source is configured for the list. */
  configured(key: ListKey): boolean
}

const HOUR = 3_600_000
const LEASE_NAME = 'sanctions_refresh'

/** How old a list may get before a refresh reads its source again, unless configured otherwise. */
export const DEFAULT_REFRESH_INTERVAL_MS = 24 * HOUR

/** True when both dates are known and the new one is before the one in use (YYYY-MM-DD compare). */
function olderThanInUse(incoming: string | null, inUse: string | null): boolean {
  return incoming !== null && inUse !== null && incoming.slice(0, 10) < inUse.slice(0, 10)
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
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

/** The configured sources, blank ones dropped, in LIST_KEYS order. */
function configuredSources(sources: Partial<Record<ListKey, string>>): Partial<Record<ListKey, string>> {
  return Object.fromEntries(
    LIST_KEYS.flatMap((key) => {
      const source = sources[key]?.trim()
      return source ? [[key, source]] : []
    }),
  ) as Partial<Record<ListKey, string>>
}

/**
 * Builds the refresher that keeps `lists` (the screening index) fed from the store and the
 * sources; nothing runs until `start()` or `refresh()`. Every pass is serialised within the
 * process and leased across processes, so two servers never download and store the same list
 * at once.
 */
export function createListRefresher(lists: ScreeningIndex, options: ListRefresherOptions): ListRefresher {
  const { store, clock } = options
  const log: SanctionsLog = options.log ?? (() => {})
  const refreshIntervalMs = options.refreshIntervalMs ?? DEFAULT_REFRESH_INTERVAL_MS
  const checkIntervalMs = options.checkIntervalMs ?? HOUR
  const keepVersions = options.keepVersions ?? 10
  const leaseMs = options.leaseMs ?? 15 * 60_000
  const minRetainedShare = options.minRetainedShare ?? 0.5
  const instanceId = options.instanceId ?? randomUUID()
  const sources = configuredSources(options.sources)
  const hasSources = Object.keys(sources).length > 0

  const abort = new AbortController()
  const baseFetch = options.fetch ?? globalThis.fetch
  const fetchImpl: typeof globalThis.fetch = (input, init) =>
    baseFetch(input, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, abort.signal]) : abort.signal,
    })

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

  async function reloadFromStore(): Promise<boolean> {
    const latest = await store.latest()
    let changed = false
    for (const version of latest) {
      if (!(LIST_KEYS as readonly string[]).includes(version.list_key)) continue
      const current = lists.held(version.list_key)
      if (current && current.version.id === version.id) {
        lists.updateVersion(version)
        continue
      }
      const entries = await store.readEntries(version.id)
      if (!entries) continue
      lists.hold(version.list_key, { version, entries })
      changed = true
    }
    if (changed) lists.rebuild()
    return changed
  }

  /** The source holds the version stored last: recorded as a check, not as a new version. */
  async function confirmUnchanged(
    key: ListKey,
    source: string,
    latest: StoredListVersion,
    startedAt: Date,
  ): Promise<ListRefreshOutcome> {
    if (stopped) return { list_key: key, status: 'failed', error: 'stopped' }
    const checkedAt = clock.now()
    await store.markChecked(latest.id, checkedAt, source)
    const current = lists.held(key)
    if (current?.version.id === latest.id) {
      lists.updateVersion({ ...current.version, checked_at: checkedAt, source })
    }
    lists.recordAttempt(key, { at: startedAt, error: null })
    return {
      list_key: key,
      status: 'unchanged',
      version_id: latest.id,
      publication_date: latest.publication_date,
      entry_count: latest.entry_count,
    }
  }

  /**
   * A changed source: parsed, checked against the version in use (a much shorter file is
   * refused as probably partial), stored with its diff, and held for screening.
   */
  async function storeNewVersion(
    key: ListKey,
    source: string,
    content: ListSource,
    latest: StoredListVersion | undefined,
    startedAt: Date,
    acceptOlder: boolean,
  ): Promise<ListRefreshOutcome> {
    options.onProgress?.({ list_key: key, phase: 'parse', bytes: content.bytes.length })
    const parsed = await parseListSource(content)
    if (stopped) return { list_key: key, status: 'failed', error: 'stopped' }
    const inUse = lists.held(key)?.version ?? latest
    const older = olderThanInUse(parsed.publication_date, inUse?.publication_date ?? null)
    if (older && !acceptOlder) {
      // Not a failed read: the copy in use stays, still confirmed by its own publication date.
      const error = `the source holds the version published ${parsed.publication_date}, older than the one in use (published ${inUse?.publication_date}); not loaded (an operator can force it: npm run lists:import -- <folder> --force)`
      log('warn', 'sanctions list version older than the one in use; refused', { list_key: key, error })
      return {
        list_key: key,
        status: 'refused_older',
        publication_date: parsed.publication_date,
        entry_count: parsed.entry_count,
        error,
      }
    }
    options.onProgress?.({ list_key: key, phase: 'store', bytes: content.bytes.length })
    let previous = lists.held(key)
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
    // A forced older version is no news: no diff against the newer one, so no (reverse) alert.
    const diff = previous && !older ? diffLists(asParsed(previous), parsed) : undefined
    const saved = await store.saveVersion({
      list: parsed,
      sha256: content.sha256,
      source,
      fetchedAt: clock.now(),
      ...(previous && diff ? { diff: { fromVersion: previous.version.id, diff } } : {}),
      keep: keepVersions,
    })
    lists.hold(key, { version: saved.version, entries: parsed.entries })
    lists.recordAttempt(key, { at: startedAt, error: null })
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
  }

  /** Reads one list's source; any failure is recorded and the previous version stays in use. */
  async function refreshList(
    key: ListKey,
    source: string,
    latest: StoredListVersion | undefined,
    acceptOlder = false,
  ): Promise<ListRefreshOutcome> {
    const startedAt = clock.now()
    try {
      const progress = options.onProgress
      const content = await loadListSource(source, {
        fetch: fetchImpl,
        ...(options.downloadTimeoutMs ? { timeoutMs: options.downloadTimeoutMs } : {}),
        ...(progress
          ? {
              onProgress: (received, total) =>
                progress({ list_key: key, phase: 'download', received, total }),
            }
          : {}),
      })
      if (content.list_key !== key) {
        throw new ListParseError(
          key,
          content.format,
          `the configured source holds the ${content.list_key} list`,
        )
      }
      if (latest && content.sha256 === latest.sha256) {
        return await confirmUnchanged(key, source, latest, startedAt)
      }
      return await storeNewVersion(key, source, content, latest, startedAt, acceptOlder)
    } catch (error) {
      const message = errorText(error)
      lists.recordAttempt(key, { at: startedAt, error: message })
      log('warn', 'sanctions list refresh failed; the previous version stays in use', {
        list_key: key,
        error: message,
      })
      return { list_key: key, status: 'failed', error: message }
    }
  }

  async function pass(
    force: boolean,
    only: readonly ListKey[] | undefined,
    acceptOlder = false,
  ): Promise<RefreshReport> {
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
        const outcome = await refreshList(key, source, version, acceptOlder)
        options.onProgress?.({
          list_key: key,
          phase: 'done',
          status: outcome.status,
          ...(outcome.entry_count !== undefined ? { entry_count: outcome.entry_count } : {}),
          ...(outcome.error ? { error: outcome.error } : {}),
        })
        if (outcome.status === 'updated') changed = true
        outcomes.push(outcome)
      }
      if (changed) lists.rebuild()
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
        const loaded = lists.loadedLists()
        if (loaded.length > 0) {
          log('info', 'sanctions lists loaded from the database', {
            lists: loaded.map((list) => ({
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
      lists.dispose()
    },

    async idle() {
      await startupDone
      await chain
    },

    refresh(refreshOptions = {}) {
      return serialised(() =>
        pass(refreshOptions.force ?? false, refreshOptions.lists, refreshOptions.acceptOlder ?? false),
      )
    },

    reloadFromStore: () => serialised(reloadFromStore),

    configured: (key) => Boolean(sources[key]),
  }
}
