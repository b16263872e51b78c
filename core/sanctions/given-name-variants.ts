import { readFileSync } from 'node:fs'

/**
 * Given-name and surname spelling variants (mohammed / muhammad / mohamed, sergey / sergei,
 * yusuf / yousef), from name-data/given-name-variants.txt: derived from the Wikidata-based
 * `synonames` pairs of alephdata/aleph-elasticsearch (MIT; forms from Wikidata, CC0) by
 * bench/matching/build-given-name-variants.ts, which says how pairs are kept. Loaded once, on
 * the first fuzzy screen.
 */

let table: Map<string, readonly string[]> | undefined

function load(): Map<string, readonly string[]> {
  const map = new Map<string, readonly string[]>()
  const text = readFileSync(new URL('./name-data/given-name-variants.txt', import.meta.url), 'utf8')
  for (const line of text.split('\n')) {
    const [form, ...variants] = line.split(' ')
    if (form && variants.length > 0) map.set(form, variants)
  }
  return map
}

/** The known spelling variants of a folded name part (empty when none are known). */
export function nameVariants(part: string): readonly string[] {
  table ??= load()
  return table.get(part) ?? []
}

/** True when the two folded parts are listed as spellings of one name. */
export function areNameVariants(a: string, b: string): boolean {
  return a !== b && nameVariants(a).includes(b)
}
