import { createHash } from 'node:crypto'
import type { EntryChange } from '../sanctions/list-diff.ts'
import { buildSanctionsIndexFromEntries, type SanctionsIndex } from '../sanctions/sanctions-index.ts'
import {
  type SanctionsMatch,
  screenAddress,
  screenName,
  screenRegistration,
} from '../sanctions/sanctions-screen.ts'
import { LIST_DISPLAY_NAMES, type ListKey, type SanctionsEntry } from '../sanctions/types.ts'
import {
  type Alert,
  type AlertEventType,
  type AlertMatch,
  JURISDICTION_OF_LIST,
  type Severity,
  type Subject,
} from './alert-schema.ts'

/**
 * Turns one stored list diff into compliance alerts: one `list` alert per
 * added, removed or changed entry, and one `key` alert per (key, entry) whose change touches a
 * name, wallet or registration number that key checked or watches. Matching re-uses the
 * screening index rules (exact normalised name, word order, address case rules, registration
 * letters-and-digits): the changed entries are indexed on their own and every subject is
 * screened against them, before and after the change.
 */

export interface DiffInput {
  diff_id: string
  list_key: ListKey
  from_date: string | null
  to_date: string | null
  added: SanctionsEntry[]
  removed: SanctionsEntry[]
  changed: EntryChange[]
  created_at: Date
}

/** Something a key checked or watches. */
export interface KeySubject {
  key_id: string
  basis: 'checked' | 'watchlist'
  subject: Subject
  watchlist_id: string | null
  check_id: string | null
}

export interface BuiltAlert {
  key_id: string | null
  alert: Alert
}

/**
 * Severity rule (documented in docs/sanctions.md, "Sanctions monitoring"):
 * - list alerts: a new listing is medium, a change low, a delisting informational;
 * - key alerts: a new listing is critical when it matched by wallet address, registration number
 *   or a primary-name exact match (score >= 0.95), else high; a change is high when it adds names,
 *   addresses, identifiers or programmes (the entry grew), else medium; a delisting is low.
 */
export function severityOf(
  eventType: AlertEventType,
  match: AlertMatch | null,
  change?: EntryChange,
): Severity {
  if (!match) {
    if (eventType === 'entry_added') return 'medium'
    if (eventType === 'entry_changed') return 'low'
    return 'informational'
  }
  if (eventType === 'entry_added') {
    return match.kind === 'crypto_address' || match.kind === 'registration' || match.score >= 0.95
      ? 'critical'
      : 'high'
  }
  if (eventType === 'entry_changed') {
    const grew =
      change !== undefined &&
      (change.fields.includes('name') ||
        change.aliases_added.length > 0 ||
        change.crypto_addresses_added.length > 0 ||
        change.identifiers_added.length > 0 ||
        change.programmes_added.length > 0)
    return grew ? 'high' : 'medium'
  }
  return 'low'
}

/** A stable alert id: the same diff, entry and key always give the same id (and event_id). */
export function alertIdOf(diffId: string, entryId: string, keyId: string | null): string {
  const digest = createHash('sha256')
    .update(`${diffId}\u0000${entryId}\u0000${keyId ?? ''}`)
    .digest('hex')
  return `alt_${digest.slice(0, 24)}`
}

function entryView(entry: SanctionsEntry): Alert['entry'] {
  return {
    entry_id: entry.entry_id,
    entry_type: entry.entry_type,
    name: entry.name,
    programmes: entry.programmes.slice(),
    countries: entry.countries.slice(),
    listed_on: entry.listed_on,
    reference: entry.reference ?? null,
    crypto_addresses: entry.identifiers
      .filter((identifier) => identifier.type === 'crypto_address')
      .map((identifier) => identifier.value),
  }
}

/** Screens one subject against an index of changed entries, by its kind. */
export function screenSubject(index: SanctionsIndex, subject: Subject): SanctionsMatch[] {
  const limit = 1000
  if (subject.type === 'wallet') return screenAddress(index, subject.value, { limit }).matches
  if (subject.type === 'registration') {
    return screenRegistration(index, subject.value, subject.country ?? undefined, { limit }).matches
  }
  return screenName(index, subject.value, { limit, ...(subject.country ? { country: subject.country } : {}) })
    .matches
}

function toAlertMatch(subject: KeySubject, match: SanctionsMatch): AlertMatch {
  return {
    basis: subject.basis,
    kind: match.match_type,
    score: match.match_score,
    matched_name: match.matched_name,
    matched_value: match.basis.value,
    subject: subject.subject,
    watchlist_id: subject.watchlist_id,
    check_id: subject.check_id,
  }
}

/** Better: higher score; on a tie a watchlist entry (explicit) before a stored check. */
function better(candidate: AlertMatch, current: AlertMatch | undefined): boolean {
  if (!current) return true
  if (candidate.score !== current.score) return candidate.score > current.score
  return candidate.basis === 'watchlist' && current.basis === 'checked'
}

/** Every alert of one diff: the list alerts, then the key alerts (best match per key and entry). */
export function buildAlerts(diff: DiffInput, subjects: readonly KeySubject[]): BuiltAlert[] {
  const createdAt = diff.created_at.toISOString()
  const changes = new Map<
    string,
    { eventType: AlertEventType; entry: SanctionsEntry; change?: EntryChange }
  >()
  for (const entry of diff.added) changes.set(entry.entry_id, { eventType: 'entry_added', entry })
  for (const entry of diff.removed) changes.set(entry.entry_id, { eventType: 'entry_removed', entry })
  for (const change of diff.changed) {
    changes.set(change.entry_id, { eventType: 'entry_changed', entry: change.after, change })
  }

  const make = (entryId: string, keyId: string | null, match: AlertMatch | null): BuiltAlert => {
    const { eventType, entry, change } = changes.get(entryId)!
    return {
      key_id: keyId,
      alert: {
        alert_id: alertIdOf(diff.diff_id, entryId, keyId),
        scope: keyId ? 'key' : 'list',
        event_type: eventType,
        severity: severityOf(eventType, match, change),
        jurisdiction: JURISDICTION_OF_LIST[diff.list_key],
        list: LIST_DISPLAY_NAMES[diff.list_key],
        list_key: diff.list_key,
        list_date: diff.to_date,
        previous_list_date: diff.from_date,
        entry: entryView(entry),
        changed_fields: change ? [...change.fields] : [],
        match,
        created_at: createdAt,
      },
    }
  }

  const alerts: BuiltAlert[] = [...changes.keys()].map((entryId) => make(entryId, null, null))
  if (subjects.length === 0 || changes.size === 0) return alerts

  // The entries as they are now (added, changed) and as they were (removed, changed).
  const after = buildSanctionsIndexFromEntries([...diff.added, ...diff.changed.map((c) => c.after)])
  const before = buildSanctionsIndexFromEntries([...diff.removed, ...diff.changed.map((c) => c.before)])
  const best = new Map<string, Map<string, AlertMatch>>()
  for (const subject of subjects) {
    for (const index of [after, before]) {
      for (const match of screenSubject(index, subject.subject)) {
        if (match.list_key !== diff.list_key) continue
        let perKey = best.get(subject.key_id)
        if (!perKey) {
          perKey = new Map()
          best.set(subject.key_id, perKey)
        }
        const candidate = toAlertMatch(subject, match)
        if (better(candidate, perKey.get(match.entry_id))) perKey.set(match.entry_id, candidate)
      }
    }
  }
  for (const [keyId, perKey] of best) {
    for (const [entryId, match] of perKey) alerts.push(make(entryId, keyId, match))
  }
  return alerts
}
