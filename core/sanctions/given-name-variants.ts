import { readFileSync } from 'node:fs'

/**
 * Given-name and surname spelling variants (mohammed / muhammad / mohamed, sergey / sergei,
 * yusuf / yousef), from name-data/given-name-variants.txt, and the Latin forms of names written
 * in Arabic or Hebrew script (هادي: hadi; ريمون: raymond; موسى: musa, moses), from
 * name-data/abjad-name-spellings.txt. Both are derived from the Wikidata-based `synonames` pairs
 * of alephdata/aleph-elasticsearch (MIT; forms from Wikidata, CC0) by
 * bench/matching/build-given-name-variants.ts, which says how pairs are kept. Loaded once, on
 * the first fuzzy screen.
 */

let table: Map<string, readonly string[]> | undefined
let abjadTable: Map<string, readonly string[]> | undefined
let abjadByLatin: Map<string, readonly string[]> | undefined

function load(file: string): Map<string, readonly string[]> {
  const map = new Map<string, readonly string[]>()
  const text = readFileSync(new URL(`./name-data/${file}`, import.meta.url), 'utf8')
  for (const line of text.split('\n')) {
    const [form, ...variants] = line.split(' ')
    if (form && variants.length > 0) map.set(form, variants)
  }
  return map
}

/** The known spelling variants of a folded name part (empty when none are known). */
export function nameVariants(part: string): readonly string[] {
  table ??= load('given-name-variants.txt')
  return table.get(part) ?? []
}

/** True when the two folded parts are listed as spellings of one name. */
export function areNameVariants(a: string, b: string): boolean {
  return a !== b && nameVariants(a).includes(b)
}

/** Latin forms (folded) of a folded Arabic- or Hebrew-script part ("hdy", هادي: hadi). */
export function latinFormsOfAbjad(abjadFolded: string): readonly string[] {
  abjadTable ??= load('abjad-name-spellings.txt')
  return abjadTable.get(abjadFolded) ?? []
}

/** Folded Arabic- and Hebrew-script parts a folded Latin part is a known form of (the reverse). */
export function abjadFormsOfLatin(latin: string): readonly string[] {
  if (!abjadByLatin) {
    abjadTable ??= load('abjad-name-spellings.txt')
    const reverse = new Map<string, string[]>()
    for (const [abjad, forms] of abjadTable) {
      for (const form of forms) {
        const list = reverse.get(form)
        if (list) list.push(abjad)
        else reverse.set(form, [abjad])
      }
    }
    abjadByLatin = reverse
  }
  return abjadByLatin.get(latin) ?? []
}

/**
 * True when the source pairs the Arabic- or Hebrew-script part with the Latin one, or with a
 * spelling variant of it (جوزيف is paired with "josef", whose variant is "joseph").
 */
export function isKnownAbjadForm(latin: string, abjadFolded: string): boolean {
  const forms = latinFormsOfAbjad(abjadFolded)
  if (forms.length === 0) return false
  if (forms.includes(latin)) return true
  for (const variant of nameVariants(latin)) if (forms.includes(variant)) return true
  return false
}
