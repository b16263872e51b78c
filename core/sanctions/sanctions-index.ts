import { nameKeys } from './name-normaliser.ts'
import { LIST_DISPLAY_NAMES, type ListKey, type ParsedList, type SanctionsEntry } from './types.ts'

/**
 * The in-memory screening index. Built from any number of parsed lists, or from a plain array
 * of stored entries at start-up (buildSanctionsIndexFromEntries), in well under a second for
 * all three lists. Entries stay plain JSON; the index only adds lookup maps of packed numbers.
 *
 * Lookup keys (rules in NAME_MATCHING.md):
 * - exact normalised name -> names, and sorted-token key -> names (primary names and aliases);
 * - crypto address -> identifiers (EVM 0x hex and bech32 case-insensitive, base58 exact);
 * - registration number (letters and digits only, upper case) -> `registration` identifiers.
 */

/** One list held by the index, for `lists_checked` / `list_dates` in screening responses. */
export interface IndexedList {
  list_key: ListKey
  list: string
  publication_date: string | null
  entry_count: number
}

export interface SanctionsIndex {
  readonly entries: readonly SanctionsEntry[]
  readonly lists: readonly IndexedList[]
  /** @internal Exact normalised name -> packed name refs (entry * 2^16 + alias index + 1). */
  readonly byExactName: ReadonlyMap<string, readonly number[]>
  /** @internal Sorted-token key -> packed name refs. */
  readonly byTokenKey: ReadonlyMap<string, readonly number[]>
  /** @internal Address key -> packed identifier refs (entry * 2^16 + identifier index). */
  readonly byAddress: ReadonlyMap<string, readonly number[]>
  /** @internal Registration key -> packed identifier refs. */
  readonly byRegistration: ReadonlyMap<string, readonly number[]>
}

/** Packing factor of refs: at most 65,535 aliases or identifiers per entry. */
export const REF_SLOTS = 0x10000

const HEX_ADDRESS = /^0x[0-9a-f]+$/i
const BECH32_ADDRESS = /^(?:bc|tb|ltc|bnb|bcrt)1[02-9ac-hj-np-z]+$/i

/**
 * The lookup key of a crypto address. EVM hex (0x...) compares case-insensitively (EIP-55 mixed
 * case is only a checksum) and so does bech32 (bc1..., ltc1..., bnb1...; the spec forbids
 * mixed case); every other form (base58 XBT/TRX/SOL/LTC/XRP, XMR) is case-sensitive and exact.
 */
export function addressKey(address: string): string {
  const trimmed = address.trim()
  if (HEX_ADDRESS.test(trimmed) || BECH32_ADDRESS.test(trimmed)) return trimmed.toLowerCase()
  return trimmed
}

const NOT_ALPHANUMERIC = /[^\p{L}\p{N}]+/gu

/** The lookup key of a registration number: NFKC, upper case, letters and digits only. */
export function registrationKey(value: string): string {
  return value.normalize('NFKC').toUpperCase().replace(NOT_ALPHANUMERIC, '')
}

function push(map: Map<string, number[]>, key: string, ref: number): void {
  const refs = map.get(key)
  if (refs === undefined) map.set(key, [ref])
  else if (refs[refs.length - 1] !== ref) refs.push(ref)
}

function listsFromEntries(entries: readonly SanctionsEntry[]): IndexedList[] {
  const counts = new Map<ListKey, number>()
  for (const entry of entries) counts.set(entry.list, (counts.get(entry.list) ?? 0) + 1)
  return [...counts].map(([listKey, count]) => ({
    list_key: listKey,
    list: LIST_DISPLAY_NAMES[listKey],
    publication_date: null,
    entry_count: count,
  }))
}

/**
 * Builds the index from a plain array of entries, e.g. rows read back from the database at
 * start-up. `lists` carries the list versions (publication dates) to report; without it the
 * lists are derived from the entries with unknown dates. Throws on a duplicate
 * (list, entry_id), which means two versions of one list were mixed.
 */
export function buildSanctionsIndexFromEntries(
  entries: readonly SanctionsEntry[],
  lists: readonly IndexedList[] = listsFromEntries(entries),
): SanctionsIndex {
  const byExactName = new Map<string, number[]>()
  const byTokenKey = new Map<string, number[]>()
  const byAddress = new Map<string, number[]>()
  const byRegistration = new Map<string, number[]>()
  const seen = new Set<string>()
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!
    const id = `${entry.list}\u0000${entry.entry_id}`
    if (seen.has(id))
      throw new Error(`duplicate sanctions entry ${entry.list}/${entry.entry_id} in index input`)
    seen.add(id)
    if (entry.aliases.length >= REF_SLOTS - 1 || entry.identifiers.length >= REF_SLOTS) {
      throw new Error(`sanctions entry ${entry.list}/${entry.entry_id} has too many aliases or identifiers`)
    }
    const base = index * REF_SLOTS
    const primary = nameKeys(entry.name)
    if (primary) {
      push(byExactName, primary.exact, base)
      push(byTokenKey, primary.tokens, base)
    }
    for (let aliasIndex = 0; aliasIndex < entry.aliases.length; aliasIndex++) {
      const keys = nameKeys(entry.aliases[aliasIndex]!.name)
      if (!keys) continue
      push(byExactName, keys.exact, base + aliasIndex + 1)
      push(byTokenKey, keys.tokens, base + aliasIndex + 1)
    }
    for (let idIndex = 0; idIndex < entry.identifiers.length; idIndex++) {
      const identifier = entry.identifiers[idIndex]!
      if (identifier.type === 'crypto_address') push(byAddress, addressKey(identifier.value), base + idIndex)
      else if (identifier.type === 'registration') {
        const key = registrationKey(identifier.value)
        if (key) push(byRegistration, key, base + idIndex)
      }
    }
  }
  return { entries, lists, byExactName, byTokenKey, byAddress, byRegistration }
}

/**
 * Builds the index from parsed lists (at most one version per list). The lists' entries are
 * concatenated in list order (OFAC SDN, EU, UN as given), which is also the tie-break order of
 * matches.
 */
export function buildSanctionsIndex(lists: readonly ParsedList[]): SanctionsIndex {
  const keys = new Set<ListKey>()
  for (const list of lists) {
    if (keys.has(list.list_key)) throw new Error(`two versions of list ${list.list_key} given to one index`)
    keys.add(list.list_key)
  }
  const entries = lists.flatMap((list) => list.entries)
  const indexed = lists.map((list) => ({
    list_key: list.list_key,
    list: LIST_DISPLAY_NAMES[list.list_key],
    publication_date: list.publication_date,
    entry_count: list.entries.length,
  }))
  return buildSanctionsIndexFromEntries(entries, indexed)
}
