import type { SanctionsEntry } from './types.ts'

/**
 * One copy of each repeated value in a list's entries, for as long as they are held in memory.
 * JSON.parse (entries read back from the database) and the XML parsers make a new string for every
 * occurrence, so the ~20,000 entries of the three lists held about 340,000 strings of which only
 * 104,000 differ: "ofac_sdn", "aka", "strong", "RU", programme names, identifier labels, dates.
 * Replacing each by the first equal string read (same value, one object) cut the entries' V8 heap
 * from 16.5 to 10.9 MB (bench:memory). Names and identifier values are left alone: they rarely
 * repeat, and hashing them tripled the time this takes.
 *
 * It also gives every array of an entry its exact length. The parsers build them with push, and
 * V8 grows an array's store by half plus 16 slots (16 at the first push), so an entry with one
 * alias carried 15 empty slots in its aliases, and so on in each of its six arrays: 8.4 MB more
 * array storage after a first load than after a restart, whose entries JSON.parse makes at their
 * length (bench:memory with MEMORY_HEAP_SNAPSHOT). Changes no value.
 */
export function shareRepeatedValues(entries: readonly SanctionsEntry[]): void {
  const pool = new Map<string, string>()
  const share = (value: string): string => {
    const known = pool.get(value)
    if (known !== undefined) return known
    pool.set(value, value)
    return value
  }
  /** The values shared, in a new array of exactly their length (slice copies no slack). */
  const shareAll = (values: string[]): string[] => {
    for (let i = 0; i < values.length; i++) values[i] = share(values[i]!)
    return values.slice()
  }
  for (const entry of entries) {
    entry.list = share(entry.list) as SanctionsEntry['list']
    entry.entry_type = share(entry.entry_type) as SanctionsEntry['entry_type']
    if (entry.listed_on !== null) entry.listed_on = share(entry.listed_on)
    if (entry.reference !== undefined) entry.reference = share(entry.reference)
    entry.programmes = shareAll(entry.programmes)
    entry.countries = shareAll(entry.countries)
    if (entry.nationalities !== undefined) entry.nationalities = shareAll(entry.nationalities)
    if (entry.birth_dates !== undefined) entry.birth_dates = shareAll(entry.birth_dates)
    entry.aliases = entry.aliases.slice()
    entry.identifiers = entry.identifiers.slice()
    for (const alias of entry.aliases) {
      if (alias.kind !== undefined) alias.kind = share(alias.kind) as typeof alias.kind
      if (alias.quality !== undefined) alias.quality = share(alias.quality) as typeof alias.quality
    }
    for (const identifier of entry.identifiers) {
      identifier.type = share(identifier.type) as typeof identifier.type
      if (identifier.currency !== undefined) identifier.currency = share(identifier.currency)
      if (identifier.country !== undefined) identifier.country = share(identifier.country)
      if (identifier.label !== undefined) identifier.label = share(identifier.label)
    }
  }
}
