import type { ListKey, ParsedList, SanctionsAlias, SanctionsEntry, SanctionsIdentifier } from './types.ts'

/**
 * Differences between two versions of one list, keyed by entry_id. This feeds the daily
 * compliance alerts and the `sanctions.match.new` webhook (spec: Events, "every list change
 * that touches the key is sent"): the refresh job looks up which checked names and wallets the
 * added, removed and changed entries touch.
 */

export const ENTRY_FIELDS = [
  'name',
  'entry_type',
  'aliases',
  'programmes',
  'countries',
  'listed_on',
  'crypto_addresses',
  'identifiers',
  'reference',
] as const
export type EntryField = (typeof ENTRY_FIELDS)[number]

export interface EntryChange {
  entry_id: string
  before: SanctionsEntry
  after: SanctionsEntry
  /** Which fields differ (order-insensitive for lists). */
  fields: EntryField[]
  aliases_added: SanctionsAlias[]
  aliases_removed: SanctionsAlias[]
  programmes_added: string[]
  programmes_removed: string[]
  countries_added: string[]
  countries_removed: string[]
  /** Digital currency addresses added to / removed from the entry. */
  crypto_addresses_added: SanctionsIdentifier[]
  crypto_addresses_removed: SanctionsIdentifier[]
  /** Other identifiers (registration, passport, national id, other). */
  identifiers_added: SanctionsIdentifier[]
  identifiers_removed: SanctionsIdentifier[]
}

export interface ListDiff {
  list_key: ListKey
  from_date: string | null
  to_date: string | null
  added: SanctionsEntry[]
  removed: SanctionsEntry[]
  changed: EntryChange[]
  unchanged_count: number
}

function aliasKey(alias: SanctionsAlias): string {
  return `${alias.name}\u0000${alias.kind ?? ''}\u0000${alias.quality ?? ''}`
}

function identifierKey(identifier: SanctionsIdentifier): string {
  return `${identifier.type}\u0000${identifier.currency ?? ''}\u0000${identifier.value}\u0000${identifier.country ?? ''}`
}

/** Items of `after` not in `before` and items of `before` not in `after`, by key, in list order. */
function setDiff<T>(before: readonly T[], after: readonly T[], key: (item: T) => string): [T[], T[]] {
  const beforeKeys = new Set(before.map(key))
  const afterKeys = new Set(after.map(key))
  return [
    after.filter((item) => !beforeKeys.has(key(item))),
    before.filter((item) => !afterKeys.has(key(item))),
  ]
}

function identity(value: string): string {
  return value
}

/** Compares two versions of one entry; null when they are the same. */
export function diffEntry(before: SanctionsEntry, after: SanctionsEntry): EntryChange | null {
  const fields: EntryField[] = []
  if (before.name !== after.name) fields.push('name')
  if (before.entry_type !== after.entry_type) fields.push('entry_type')
  const [aliasesAdded, aliasesRemoved] = setDiff(before.aliases, after.aliases, aliasKey)
  if (aliasesAdded.length + aliasesRemoved.length > 0) fields.push('aliases')
  const [programmesAdded, programmesRemoved] = setDiff(before.programmes, after.programmes, identity)
  if (programmesAdded.length + programmesRemoved.length > 0) fields.push('programmes')
  const [countriesAdded, countriesRemoved] = setDiff(before.countries, after.countries, identity)
  if (countriesAdded.length + countriesRemoved.length > 0) fields.push('countries')
  if (before.listed_on !== after.listed_on) fields.push('listed_on')
  const isCrypto = (identifier: SanctionsIdentifier) => identifier.type === 'crypto_address'
  const [cryptoAdded, cryptoRemoved] = setDiff(
    before.identifiers.filter(isCrypto),
    after.identifiers.filter(isCrypto),
    identifierKey,
  )
  if (cryptoAdded.length + cryptoRemoved.length > 0) fields.push('crypto_addresses')
  const [idsAdded, idsRemoved] = setDiff(
    before.identifiers.filter((identifier) => !isCrypto(identifier)),
    after.identifiers.filter((identifier) => !isCrypto(identifier)),
    identifierKey,
  )
  if (idsAdded.length + idsRemoved.length > 0) fields.push('identifiers')
  if ((before.reference ?? '') !== (after.reference ?? '')) fields.push('reference')
  if (fields.length === 0) return null
  return {
    entry_id: after.entry_id,
    before,
    after,
    fields,
    aliases_added: aliasesAdded,
    aliases_removed: aliasesRemoved,
    programmes_added: programmesAdded,
    programmes_removed: programmesRemoved,
    countries_added: countriesAdded,
    countries_removed: countriesRemoved,
    crypto_addresses_added: cryptoAdded,
    crypto_addresses_removed: cryptoRemoved,
    identifiers_added: idsAdded,
    identifiers_removed: idsRemoved,
  }
}

/**
 * Diffs two parsed versions of the same list by entry_id: added, removed and changed entries
 * (with what changed). Throws when the lists are different lists, since mixing them would
 * report every entry as added and removed.
 */
export function diffLists(before: ParsedList, after: ParsedList): ListDiff {
  if (before.list_key !== after.list_key) {
    throw new Error(`cannot diff list ${before.list_key} against list ${after.list_key}`)
  }
  const beforeById = new Map(before.entries.map((entry) => [entry.entry_id, entry]))
  const afterIds = new Set<string>()
  const added: SanctionsEntry[] = []
  const changed: EntryChange[] = []
  let unchanged = 0
  for (const entry of after.entries) {
    afterIds.add(entry.entry_id)
    const previous = beforeById.get(entry.entry_id)
    if (!previous) {
      added.push(entry)
      continue
    }
    const change = diffEntry(previous, entry)
    if (change) changed.push(change)
    else unchanged++
  }
  const removed = before.entries.filter((entry) => !afterIds.has(entry.entry_id))
  return {
    list_key: after.list_key,
    from_date: before.publication_date,
    to_date: after.publication_date,
    added,
    removed,
    changed,
    unchanged_count: unchanged,
  }
}
