import { and, count, desc, eq, inArray, isNotNull, isNull, or, type SQL } from 'drizzle-orm'
import type { Clock } from '../context.ts'
import {
  type Dismissal,
  type DismissalStore,
  ENTRY_CHANGED,
  matchDismissalOf,
  stillCovers,
  subjectKeyOf,
} from '../sanctions/dismissal-store.ts'
import type { EntryChange } from '../sanctions/list-diff.ts'
import type { SanctionsListStore } from '../sanctions/list-store.ts'
import type { SanctionsEntry } from '../sanctions/types.ts'
import type { Db } from '../store/database.ts'
import { alertDiffRuns, complianceAlerts, entityChecks } from '../store/schema.ts'
import type { WebhookStore } from '../webhooks/webhook-store.ts'
import { type BuiltAlert, buildAlerts, type KeySubject } from './alert-builder.ts'
import type { Alert, Jurisdiction, Severity, Subject } from './alert-schema.ts'
import type { WatchlistStore } from './watchlist-store.ts'

/**
 * Sanctions monitoring as a running service: finds stored list diffs not yet turned
 * into alerts, builds their alerts against every key's stored checks and watchlist, and stores
 * the alerts with their webhook deliveries in one transaction, marked by a row in
 * alert_diff_runs. A diff is processed exactly once across processes (the marker's primary key)
 * and never lost to a crash (the transaction rolls back and the next pass does it).
 */

export interface AlertQuery {
  /** The calling key: its own alerts plus the list alerts; null: list alerts only (x402 payers). */
  keyId: string | null
  jurisdiction?: Jurisdiction
  severity?: Severity
  limit: number
  offset: number
}

export interface SanctionsMonitor {
  /** Processes every stored diff that has no alerts yet; the number of alerts stored. */
  processPending(): Promise<number>
  alerts(query: AlertQuery): Promise<{ total: number; alerts: Alert[] }>
  /** For operators: which of these diffs were turned into alerts, when, and how many. */
  diffRuns(diffIds: readonly string[]): Promise<Map<string, { alert_count: number; processed_at: Date }>>
  start(): void
  stop(): Promise<void>
}

export interface SanctionsMonitorOptions {
  db: Db
  clock: Clock
  listStore: SanctionsListStore
  watchlist: WatchlistStore
  webhooks: WebhookStore
  /** The keys' dismissed matches: an alert for one whose entry did not change is not raised; one whose entry changed re-opens it. */
  dismissals?: Pick<DismissalStore, 'allActive' | 'reopen'>
  /** Called after deliveries were queued (wakes the delivery worker). */
  onQueued?: () => void
  /** How often to look for new diffs (default 30 s). */
  intervalMs?: number
  log?: (level: 'info' | 'warn' | 'error', message: string, extra?: unknown) => void
}

/** The event a key alert is delivered as (spec: Events). */
export const MATCH_EVENT = 'sanctions.match.new'

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null

/** What a stored check's input names: its entity name, registration numbers and wallet. */
export function subjectsOfCheckInput(input: unknown): Subject[] {
  if (typeof input !== 'object' || input === null) return []
  const fields = input as Record<string, unknown>
  const country = text(fields.country)
  const subjects: Subject[] = []
  const name = text(fields.entity_name)
  if (name) subjects.push({ type: 'name', value: name, country, chain: null })
  for (const [field, registrationCountry] of [
    ['kvk_number', 'NL'],
    ['cbe_number', 'BE'],
    ['registration_number', country],
  ] as const) {
    const value = text(fields[field])
    if (value) subjects.push({ type: 'registration', value, country: registrationCountry, chain: null })
  }
  const wallet = text(fields.wallet_address) ?? text(fields.wallet)
  if (wallet)
    subjects.push({ type: 'wallet', value: wallet, country: null, chain: text(fields.wallet_chain) })
  return subjects
}

export function createSanctionsMonitor(options: SanctionsMonitorOptions): SanctionsMonitor {
  const { db, clock, listStore, watchlist, webhooks } = options
  const log = options.log ?? (() => {})
  let timer: NodeJS.Timeout | undefined
  let running: Promise<number> | undefined

  /** Every key's subjects: stored checks (newest check per subject) and watchlist entries. */
  async function loadSubjects(): Promise<KeySubject[]> {
    const subjects = new Map<string, KeySubject>()
    const checks = await db
      .select({ id: entityChecks.id, keyId: entityChecks.keyId, input: entityChecks.input })
      .from(entityChecks)
      .where(isNotNull(entityChecks.keyId))
      .orderBy(desc(entityChecks.createdAt))
    for (const check of checks) {
      for (const subject of subjectsOfCheckInput(check.input)) {
        const id = `${check.keyId}\u0000checked\u0000${subject.type}\u0000${subject.value}\u0000${subject.country ?? ''}`
        if (subjects.has(id)) continue
        subjects.set(id, {
          key_id: check.keyId!,
          basis: 'checked',
          subject,
          watchlist_id: null,
          check_id: check.id,
        })
      }
    }
    const list: KeySubject[] = [...subjects.values()]
    for (const entry of await watchlist.all()) {
      list.push({
        key_id: entry.key_id,
        basis: 'watchlist',
        subject: { type: entry.type, value: entry.value, country: entry.country, chain: entry.chain },
        watchlist_id: entry.watchlist_id,
        check_id: null,
      })
    }
    return list
  }

  /**
   * Drops the key alerts of dismissed matches whose entry reads as when it was dismissed (and of
   * dismissed entries delisted), and marks those whose entry changed as re-opening the dismissal.
   */
  async function applyDismissals(
    built: BuiltAlert[],
    detail: { added: SanctionsEntry[]; changed: EntryChange[] },
  ): Promise<{ alerts: BuiltAlert[]; reopen: string[] }> {
    const store = options.dismissals
    if (!store || !built.some((item) => item.key_id && item.alert.match)) return { alerts: built, reopen: [] }
    const active = new Map<string, Dismissal>()
    for (const dismissal of await store.allActive()) {
      const subjectKey = subjectKeyOf(dismissal.subject_type, dismissal.subject)
      active.set(
        `${dismissal.key_id}\u0000${dismissal.subject_type}\u0000${subjectKey}\u0000${dismissal.list_key}\u0000${dismissal.entry_id}`,
        dismissal,
      )
    }
    if (active.size === 0) return { alerts: built, reopen: [] }
    const after = new Map<string, SanctionsEntry>()
    for (const entry of detail.added) after.set(entry.entry_id, entry)
    for (const change of detail.changed) after.set(change.entry_id, change.after)
    const alerts: BuiltAlert[] = []
    const reopen = new Set<string>()
    for (const item of built) {
      const match = item.alert.match
      if (!item.key_id || !match) {
        alerts.push(item)
        continue
      }
      const subjectKey = subjectKeyOf(match.subject.type, match.subject.value)
      const dismissal = active.get(
        `${item.key_id}\u0000${match.subject.type}\u0000${subjectKey}\u0000${item.alert.list_key}\u0000${item.alert.entry.entry_id}`,
      )
      if (!dismissal) {
        alerts.push(item)
        continue
      }
      const entry = after.get(item.alert.entry.entry_id)
      if (item.alert.event_type === 'entry_removed' || (entry && stillCovers(dismissal, entry))) continue
      reopen.add(dismissal.dismissal_id)
      const reopened = {
        ...dismissal,
        status: 'reopened' as const,
        reopened_at: clock.now().toISOString(),
        reopened_reason: ENTRY_CHANGED,
      }
      alerts.push({
        key_id: item.key_id,
        alert: { ...item.alert, match: { ...match, dismissal: matchDismissalOf(reopened, 'reopened') } },
      })
    }
    return { alerts, reopen: [...reopen] }
  }

  async function processDiff(diffId: string): Promise<number> {
    const diff = await listStore.readDiff(diffId)
    if (!diff) return 0
    const built = buildAlerts(
      {
        diff_id: diff.id,
        list_key: diff.list_key,
        from_date: diff.from_date,
        to_date: diff.to_date,
        added: diff.detail.added,
        removed: diff.detail.removed,
        changed: diff.detail.changed,
        created_at: diff.created_at,
      },
      await loadSubjects(),
    )
    const { alerts: raised, reopen } = await applyDismissals(built, diff.detail)
    let queued = 0
    const stored = await db.transaction(async (tx) => {
      const claimed = await tx
        .insert(alertDiffRuns)
        .values({ diffId, alertCount: raised.length, processedAt: clock.now() })
        .onConflictDoNothing()
        .returning({ diffId: alertDiffRuns.diffId })
      if (claimed.length === 0) return 0
      for (let start = 0; start < raised.length; start += 500) {
        await tx
          .insert(complianceAlerts)
          .values(
            raised.slice(start, start + 500).map(({ key_id, alert }) => ({
              id: alert.alert_id,
              diffId,
              keyId: key_id,
              listKey: alert.list_key,
              jurisdiction: alert.jurisdiction,
              eventType: alert.event_type,
              entryId: alert.entry.entry_id,
              severity: alert.severity,
              alert,
              createdAt: new Date(alert.created_at),
            })),
          )
          .onConflictDoNothing()
      }
      for (const { key_id, alert } of raised) {
        if (!key_id) continue
        queued += await webhooks.enqueue(
          tx,
          key_id,
          MATCH_EVENT,
          alert.alert_id,
          alert,
          new Date(alert.created_at),
        )
      }
      return raised.length
    })
    // After the commit: the alerts saying so are stored. A crash in between leaves them active;
    // the next screen of the subject compares the fingerprint and re-opens them then.
    if (stored > 0 && reopen.length > 0) await options.dismissals?.reopen(reopen, ENTRY_CHANGED)
    if (stored > 0) {
      log('info', 'compliance alerts stored', {
        diff: diffId,
        list: diff.list_key,
        alerts: stored,
        deliveries: queued,
      })
    }
    if (queued > 0) options.onQueued?.()
    return stored
  }

  async function processPendingOnce(): Promise<number> {
    const diffs = await listStore.diffs({ limit: 1000 })
    if (diffs.length === 0) return 0
    const done = await db
      .select({ diffId: alertDiffRuns.diffId })
      .from(alertDiffRuns)
      .where(
        inArray(
          alertDiffRuns.diffId,
          diffs.map((diff) => diff.id),
        ),
      )
    const processed = new Set(done.map((row) => row.diffId))
    let total = 0
    // Oldest first, so alerts appear in the order the lists changed.
    for (const diff of [...diffs].reverse()) {
      if (processed.has(diff.id)) continue
      total += await processDiff(diff.id)
    }
    return total
  }

  function processPending(): Promise<number> {
    // One pass at a time per process; a caller during a pass waits for it and then runs its own.
    const next = (running ?? Promise.resolve(0)).catch(() => 0).then(processPendingOnce)
    running = next
    return next
  }

  return {
    processPending,

    async alerts({ keyId, jurisdiction, severity, limit, offset }) {
      const conditions: SQL[] = [
        keyId
          ? (or(isNull(complianceAlerts.keyId), eq(complianceAlerts.keyId, keyId)) as SQL)
          : isNull(complianceAlerts.keyId),
      ]
      if (jurisdiction) conditions.push(eq(complianceAlerts.jurisdiction, jurisdiction))
      if (severity) conditions.push(eq(complianceAlerts.severity, severity))
      const where = and(...conditions)
      const [total] = await db.select({ n: count() }).from(complianceAlerts).where(where)
      const rows = await db
        .select({ alert: complianceAlerts.alert })
        .from(complianceAlerts)
        .where(where)
        .orderBy(desc(complianceAlerts.createdAt), desc(complianceAlerts.id))
        .limit(limit)
        .offset(offset)
      return { total: Number(total?.n ?? 0), alerts: rows.map((row) => row.alert as Alert) }
    },

    async diffRuns(diffIds) {
      if (diffIds.length === 0) return new Map()
      const rows = await db
        .select()
        .from(alertDiffRuns)
        .where(inArray(alertDiffRuns.diffId, [...diffIds]))
      return new Map(
        rows.map((row) => [row.diffId, { alert_count: row.alertCount, processed_at: row.processedAt }]),
      )
    },

    start() {
      if (timer) return
      const tick = () =>
        void processPending().catch((error) => log('warn', 'compliance alerts pass failed', String(error)))
      tick()
      timer = setInterval(tick, options.intervalMs ?? 30_000)
      timer.unref()
    },

    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await running?.catch(() => {})
    },
  }
}
