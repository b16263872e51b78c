/**
 * Derives core/sanctions/name-data/given-name-variants.txt from the `synonames.txt` file of
 * alephdata/aleph-elasticsearch (MIT, Journalism Development Network; forms taken from
 * Wikidata, CC0): pairs of name forms ("mohamed, mohammed", "muhammad, محمد") that Wikidata
 * records as the same given name or surname.
 *
 *   npx tsx bench/matching/build-given-name-variants.ts path/to/synonames.txt
 *
 * Each form is folded the way the fuzzy matcher folds a name part (any-ascii, lower case,
 * letters only). Two Latin forms are variants when the file pairs them directly, or when both
 * are paired with the same non-Latin form (muhammad - محمد - mohamed): one hop through
 * another script, never more, so chains do not merge unrelated names. A pair is kept only
 * when it is a spelling variant, not a related name: the two start with the same sound
 * (Double Metaphone), their consonant skeletons are close (Jaro-Winkler >= 0.85 and Levenshtein >= 0.6: mohammed /
 * muhammad, yusuf / yousef, but not ahmed / mohammed or angel / miguel), both or neither is a
 * patronymic (sergey, not sergeevich), and neither is a much shorter part of the other
 * (abdul / abdulaziz). The output maps each form to its
 * variants: one line per form, the form then its variants, space-separated, sorted.
 *
 * It also writes core/sanctions/name-data/abjad-name-spellings.txt: for each name written in
 * Arabic or Hebrew script, the Latin forms the file pairs with it ("yusuf" with يوسف, "raymond"
 * with ريمون, "moses" with موسى). These are kept whatever their letters: Wikidata records them as the same name, and a
 * consonant skeleton cannot tell that "Hadi" is هادي rather than one of the many words on h-d, nor
 * that "Moses" is موسى. The Arabic-script form is folded as the matcher folds a listed part
 * (the exact normaliser's tokens, then any-ascii: هادي is "hdy"); one line per folded form, then
 * its Latin forms.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { consonantSkeleton, foldNamePart, soundClass } from '../../core/sanctions/fuzzy-name-parts.ts'
import { nameTokens } from '../../core/sanctions/name-normaliser.ts'
import { jaroWinkler, levenshteinSimilarity } from '../../core/sanctions/name-similarity.ts'

const PATRONYMIC =
  /(ovich|evich|ovna|evna|ovitsj|evitsj|owitsch|ewitsch|ovic|evic|ovych|ivna|ovics|evics|ovitch|evitch)$/
const LATIN_ONLY = /^[\p{Script=Latin}\p{M}'’-]+$/u
const ABJAD_ONLY = /^[\p{Script=Arabic}\p{Script=Hebrew}\p{M}\u200c\u200d]+$/u
const input = process.argv[2]
if (!input) throw new Error('usage: build-given-name-variants.ts path/to/synonames.txt')

const latinOf = new Map<string, Set<string>>()
const variants = new Map<string, Set<string>>()
const link = (a: string, b: string) => {
  if (a === b || a.length < 2 || b.length < 2) return
  if (soundClass(a) !== soundClass(b)) return
  const skeletonA = consonantSkeleton(a)
  const skeletonB = consonantSkeleton(b)
  if (jaroWinkler(skeletonA, skeletonB) < 0.85 || levenshteinSimilarity(skeletonA, skeletonB) < 0.6) return
  if (PATRONYMIC.test(a) !== PATRONYMIC.test(b)) return
  if ((a.includes(b) || b.includes(a)) && Math.abs(a.length - b.length) >= 3) return
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const) {
    const set = variants.get(x) ?? new Set<string>()
    variants.set(x, set)
    set.add(y)
  }
}
for (const line of readFileSync(input, 'utf8').split('\n')) {
  const [left, right] = line.split(', ').map((form) => form?.trim() ?? '')
  if (!left || !right || left.includes(' ') || right.includes(' ')) continue
  const leftLatin = LATIN_ONLY.test(left)
  const rightLatin = LATIN_ONLY.test(right)
  if (leftLatin && rightLatin) link(foldNamePart(left), foldNamePart(right))
  else if (leftLatin !== rightLatin) {
    const [latin, other] = leftLatin ? [left, right] : [right, left]
    const set = latinOf.get(other) ?? new Set<string>()
    latinOf.set(other, set)
    set.add(foldNamePart(latin))
  }
}
// Arabic- and Hebrew-script forms: the Latin forms paired with them, folded as the index folds
// a listed part. Only direct pairs: the file also pairs names of one script that are not the
// same name (أحمد, محمد), so a hop through another Arabic-script form would merge them.
const abjadLatin = new Map<string, Set<string>>()
for (const line of readFileSync(input, 'utf8').split('\n')) {
  const [left, right] = line.split(', ').map((form) => form?.trim() ?? '')
  if (!left || !right) continue
  for (const [a, b] of [
    [left, right],
    [right, left],
  ] as const) {
    if (!ABJAD_ONLY.test(a) || !LATIN_ONLY.test(b)) continue
    const tokens = nameTokens(a)
    const folded = tokens.length === 1 ? foldNamePart(tokens[0]!) : ''
    const latin = foldNamePart(b)
    if (folded.length < 2 || latin.length < 2) continue
    const set = abjadLatin.get(folded) ?? new Set<string>()
    abjadLatin.set(folded, set)
    set.add(latin)
  }
}
const abjadLines = [...abjadLatin].map(([form, latin]) => [form, ...[...latin].sort()].join(' ')).sort()

for (const forms of latinOf.values()) {
  const list = [...forms]
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) link(list[i]!, list[j]!)
}
const lines = [...variants]
  .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  .map(([form, set]) => [form, ...[...set].sort()].join(' '))
const out = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../core/sanctions/name-data/given-name-variants.txt',
)
writeFileSync(out, `${lines.join('\n')}\n`)
const abjadOut = path.join(path.dirname(out), 'abjad-name-spellings.txt')
writeFileSync(abjadOut, `${abjadLines.join('\n')}\n`)
console.log(JSON.stringify({ forms: lines.length, out, abjad_forms: abjadLines.length, abjadOut }))
