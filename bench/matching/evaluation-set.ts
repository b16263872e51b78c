import { createRequire } from 'node:module'
import {
  fakerAR,
  fakerDE,
  fakerEN,
  fakerES,
  fakerFR,
  fakerIT,
  fakerNL,
  fakerPL,
  fakerRU,
  fakerTR,
} from '@faker-js/faker'
import { transliterate } from 'transliteration'
import { isLatinName, nameTokens, normaliseName } from '../../core/sanctions/name-normaliser.ts'
import type { SanctionsAlias, SanctionsEntry } from '../../core/sanctions/types.ts'

/**
 * The labelled evaluation set of the name-matching benchmark, generated from the real lists
 * with a seeded random generator: the same lists and seed give the same set.
 *
 * The generator never calls the matcher and shares none of its rules or data: typos are random
 * edits, other transliterations come from two libraries the matcher does not use
 * (`transliteration`, `cyrillic-to-translit-js`) or from the lists' own Latin spellings,
 * ordinary names from faker's locale name lists. Labels come from the lists alone:
 *
 * Positives (the query names one listed entry, which must be found):
 * - `alias`: an a.k.a./f.k.a./n.k.a. as published;
 * - `script`: a non-Latin spelling as published (Cyrillic, Arabic, Han, ...);
 * - `typo`: a Latin name with one random edit (two in names of 20+ letters): a letter
 *   inserted, deleted, replaced or two swapped, in a word of four or more letters;
 * - `transliteration`: the entry's Cyrillic name romanised by another library (kept only when
 *   it differs from every Latin name the list gives), or an Arabic-origin Latin name with
 *   common romanisation alternations (ou/u/o, ee/i, e/a, doubled letters, el-/al-, k/q);
 * - `joined_split`: two adjacent words joined, or a long word split in two;
 * - `reordered`: the words of a Latin name in another order (not names with "bin", "ibn",
 *   "ben", "ould", whose order says who is whose son);
 * - `cross_script_cyrillic`, `cross_script_arabic`: a listed person is indexed with their
 *   Cyrillic or Arabic names only (their Latin names removed, as if the list published no Latin
 *   spelling) and the query is one of the Latin names the list does publish for them. Persons
 *   only: an organisation's Latin name is usually a translation ("Company" for "شركة"), which
 *   no spelling rule can find, not a spelling. A Latin name that is another name of the person
 *   (at most one word in common with every indexed Cyrillic or Arabic name: spellsTheSameName)
 *   is marked `otherName` and reported apart: no reading of the letters can find it.
 *
 * Hard negatives (nothing should be found): a query is kept only when no listed name
 * (of any entry, in any script after the exact normaliser) contains all its words:
 * - `recombined`: the given name of one listed person with the surname of another, or the
 *   first word of one listed organisation with the rest of another's name;
 * - `father_son`: "X bin Y" as "Y bin X" (and ibn, ben, ould), and "Ivan Petrovich Sidorov"
 *   as "Petr Ivanovich Sidorov";
 * - `ordinary_person`, `ordinary_company`: faker names from ten locales (Arabic and Russian
 *   ones in their own script and romanised).
 */

export const POSITIVE_KINDS = [
  'alias',
  'script',
  'typo',
  'transliteration',
  'joined_split',
  'reordered',
  'cross_script_cyrillic',
  'cross_script_arabic',
] as const
export const NEGATIVE_KINDS = ['recombined', 'father_son', 'ordinary_person', 'ordinary_company'] as const
export type PositiveKind = (typeof POSITIVE_KINDS)[number]
export type NegativeKind = (typeof NEGATIVE_KINDS)[number]

export interface EvaluationQuery {
  kind: PositiveKind | NegativeKind
  name: string
  /** The listed entry the query names (`list/entry_id`); null for negatives. */
  expected: string | null
  /** What the query was made from, for reading failures. */
  source?: string
  /**
   * Cross-script kinds only: the Latin name the list gives is another name of the person, not a
   * spelling of the indexed Cyrillic or Arabic one (spellsTheSameName). Reported apart.
   */
  otherName?: boolean
}

export interface EvaluationSet {
  /** The entries to index: the lists, with the cross-script entries' Latin names removed. */
  entries: SanctionsEntry[]
  queries: EvaluationQuery[]
}

/**
 * Consonants of a romanised word: letters only, the usual romanisation alternations merged
 * (kh/k, gh/q/k/c, th/s, sh/ch/s, dh/z), doubled letters once, vowels and the glides w/v/y out.
 */
function consonantsOfWord(word: string): string {
  return word
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/kh|gh|q|c(?!h)/g, 'k')
    .replace(/th|sh|ch/g, 's')
    .replace(/dh/g, 'z')
    .replace(/(.)\1+/g, '$1')
    .replace(/[aeiouwvy]/g, '')
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
    }
    previous = current
  }
  return previous[b.length]!
}

/**
 * Whether a Latin name the list gives is a spelling of a listed Cyrillic or Arabic name rather
 * than another name of the same person (a nickname, a kunya such as "Abu Javad", a name used
 * elsewhere): at least two of its words (one when either name has one word) agree with words
 * of the other name romanised by the `transliteration` library, consonants compared loosely
 * (Levenshtein distance at most half the longer or 1, or the same first consonant for a word of
 * one or two). Deliberately lenient, so only names with at most one word in common are set apart;
 * it shares nothing with the matcher.
 */
export function spellsTheSameName(latin: string, script: string): boolean {
  const latinTokens = nameTokens(latin)
  const scriptTokens = nameTokens(transliterate(script.replace(/ё/g, 'е')))
  // Each word, and each two adjacent words written as one (a compound written apart in one
  // script and joined in the other: "Zarringhalam" / زرین قلم, "Gholam Reza" / غلامرضا).
  const withJoined = (tokens: string[]) => [
    ...tokens,
    ...tokens.slice(1).map((token, i) => tokens[i]! + token),
  ]
  const latinWords = withJoined(latinTokens).map(consonantsOfWord).filter(Boolean)
  const scriptWords = withJoined(scriptTokens).map(consonantsOfWord).filter(Boolean)
  if (latinWords.length === 0 || scriptWords.length === 0) return false
  const agree = (a: string, b: string) =>
    levenshtein(a, b) <= Math.max(1, Math.max(a.length, b.length) / 2) ||
    (Math.min(a.length, b.length) <= 2 && a[0] === b[0])
  const used = new Set<number>()
  let agreeing = 0
  // Longer words first, so an article ("El") does not take the word its name needs ("Zein" / الزين).
  for (const word of [...latinWords].sort((x, y) => y.length - x.length)) {
    const at = scriptWords.findIndex((other, i) => !used.has(i) && agree(word, other))
    if (at >= 0) {
      used.add(at)
      agreeing++
    }
  }
  return agreeing >= Math.min(2, latinTokens.length, scriptTokens.length)
}

/** mulberry32: small, seedable, good enough to sample and mutate. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** cyrillic-to-translit-js is CommonJS whose typings declare an ES default export; load it as what it is. */
const cyrillicToTranslit = createRequire(import.meta.url)('cyrillic-to-translit-js') as (config: {
  preset: 'ru' | 'uk' | 'mn'
}) => { transform(input: string): string }

const CYRILLIC = /\p{Script=Cyrillic}/u
const ARABIC = /\p{Script=Arabic}/u
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'

function idOf(entry: SanctionsEntry): string {
  return `${entry.list}/${entry.entry_id}`
}

/** "Surname, Given names" as people type it: "Given names Surname". */
function spoken(name: string): string {
  const parts = name.split(',')
  return parts.length === 2 ? `${parts[1]!.trim()} ${parts[0]!.trim()}` : name
}

function latinNames(entry: SanctionsEntry): string[] {
  return [entry.name, ...entry.aliases.map((alias) => alias.name)].filter(isLatinName)
}

/** Words for the "not listed" label: the exact normaliser's tokens, ё read as е. */
function labelWords(name: string): string[] {
  return nameTokens(name.replace(/ё/g, 'е').replace(/Ё/g, 'Е'))
}

/**
 * Every listed name's word set, to label a query "not listed": no listed name holds all its
 * words, as written or romanised by the `transliteration` library (so a Latin query that is a
 * listed Cyrillic name read aloud is not called a negative).
 */
function buildContainment(entries: readonly SanctionsEntry[]) {
  const byWord = new Map<string, number[]>()
  const nameWords: Array<Set<string>> = []
  for (const entry of entries) {
    const names = [entry.name, ...entry.aliases.map((alias) => alias.name)]
    for (const name of [
      ...names,
      ...names.filter((name) => !isLatinName(name)).map((name) => transliterate(name.replace(/ё/g, 'е'))),
    ]) {
      const words = new Set(labelWords(name))
      const id = nameWords.length
      nameWords.push(words)
      for (const word of words) {
        const list = byWord.get(word)
        if (list) list.push(id)
        else byWord.set(word, [id])
      }
    }
  }
  return (query: string): boolean => {
    const words = [...new Set(labelWords(query))]
    if (words.length === 0) return true
    const rarest = words.map((word) => byWord.get(word) ?? []).sort((a, b) => a.length - b.length)[0]!
    return rarest.some((id) => words.every((word) => nameWords[id]!.has(word)))
  }
}

export interface GenerateOptions {
  seed: number
  /** Queries per positive kind (at most; fewer when the lists have fewer). */
  perPositiveKind: number
  /** Queries per negative kind. */
  perNegativeKind: number
}

/** Generates the evaluation set (see the file comment). */
export function generateEvaluationSet(
  lists: readonly SanctionsEntry[],
  options: GenerateOptions,
): EvaluationSet {
  const next = random(options.seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const shuffled = <T>(items: readonly T[]): T[] => {
    const copy = [...items]
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1))
      ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
    }
    return copy
  }
  const isListed = buildContainment(lists)
  const queries: EvaluationQuery[] = []
  const used = new Set<string>()

  // Exact keys of every Latin name -> entries, so cross-script queries name one entry only.
  const entriesByLatinKey = new Map<string, Set<string>>()
  for (const entry of lists) {
    for (const name of latinNames(entry)) {
      const key = nameTokens(name).sort().join(' ')
      const set = entriesByLatinKey.get(key) ?? new Set<string>()
      set.add(idOf(entry))
      entriesByLatinKey.set(key, set)
    }
  }

  // Cross-script: entries indexed with their Cyrillic / Arabic names only.
  const masked = new Map<string, SanctionsEntry>()
  for (const [kind, script] of [
    ['cross_script_cyrillic', CYRILLIC],
    ['cross_script_arabic', ARABIC],
  ] as const) {
    const candidates = shuffled(
      lists.filter(
        (entry) =>
          entry.entry_type === 'person' &&
          entry.aliases.some((alias) => alias.kind === 'original_script' && script.test(alias.name)) &&
          latinNames(entry).length > 0,
      ),
    )
    let count = 0
    for (const entry of candidates) {
      if (count >= options.perPositiveKind) break
      if (used.has(idOf(entry))) continue
      const query = spoken(pick(latinNames(entry)))
      const owners = entriesByLatinKey.get(nameTokens(query).sort().join(' '))
      if (owners?.size !== 1) continue
      const scriptNames = entry.aliases.filter(
        (alias) => alias.kind === 'original_script' && !isLatinName(alias.name),
      )
      const [first, ...rest] = scriptNames
      masked.set(idOf(entry), { ...entry, name: first!.name, aliases: rest })
      used.add(idOf(entry))
      const other = !scriptNames.some((alias) => spellsTheSameName(query, alias.name))
      queries.push({
        kind,
        name: query,
        expected: idOf(entry),
        source: first!.name,
        ...(other ? { otherName: true } : {}),
      })
      count++
    }
  }

  const pool = shuffled(lists.filter((entry) => !used.has(idOf(entry))))
  const positives = (kind: PositiveKind, make: (entry: SanctionsEntry) => string | null) => {
    let count = 0
    for (const entry of pool) {
      if (count >= options.perPositiveKind) return
      const key = `${kind}:${idOf(entry)}`
      if (used.has(key)) continue
      const name = make(entry)
      if (!name || normaliseName(name) === '') continue
      used.add(key)
      queries.push({ kind, name, expected: idOf(entry), source: entry.name })
      count++
    }
  }
  const strongLatin = (entry: SanctionsEntry): string[] => [
    spoken(entry.name),
    ...entry.aliases
      .filter(
        (alias: SanctionsAlias) =>
          alias.quality !== 'weak' && alias.quality !== 'low' && isLatinName(alias.name),
      )
      .map((alias) => spoken(alias.name)),
  ]
  const letterCount = (name: string) => nameTokens(name).join('').length

  positives('alias', (entry) => {
    const aliases = entry.aliases.filter(
      (alias) => alias.kind !== 'original_script' && isLatinName(alias.name),
    )
    return aliases.length > 0 ? pick(aliases).name : null
  })
  positives('script', (entry) => {
    const scripts = entry.aliases.filter((alias) => !isLatinName(alias.name))
    return scripts.length > 0 ? pick(scripts).name : null
  })
  positives('typo', (entry) => {
    const name = pick(strongLatin(entry))
    const words = name.split(/\s+/)
    const editable = words
      .map((word, i) => [word, i] as const)
      .filter(([word]) => /^[A-Za-z]{4,}$/.test(word))
    if (editable.length === 0 || (words.length === 1 && words[0]!.length < 6)) return null
    const edits = letterCount(name) >= 20 && editable.length >= 2 ? 2 : 1
    for (const [word, i] of shuffled(editable).slice(0, edits)) words[i] = typo(word, next)
    const result = words.join(' ')
    return result === name ? null : result
  })
  const ruTranslit = cyrillicToTranslit({ preset: 'ru' })
  positives('transliteration', (entry) => {
    const cyrillic = entry.aliases.filter((alias) => CYRILLIC.test(alias.name))
    const listedKeys = new Set(latinNames(entry).map((name) => nameTokens(name).sort().join(' ')))
    if (cyrillic.length > 0) {
      const source = spoken(pick(cyrillic).name)
      const romanised = next() < 0.5 ? transliterate(source) : ruTranslit.transform(source)
      if (!listedKeys.has(nameTokens(romanised).sort().join(' '))) return romanised
      return null
    }
    if (!entry.aliases.some((alias) => ARABIC.test(alias.name))) return null
    const name = pick(strongLatin(entry))
    const varied = romanisationVariant(name, next)
    return varied !== name && !listedKeys.has(nameTokens(varied).sort().join(' ')) ? varied : null
  })
  positives('joined_split', (entry) => {
    const name = pick(strongLatin(entry))
    const words = name.split(/\s+/).filter(Boolean)
    if (next() < 0.5 && words.length >= 2) {
      const i = Math.floor(next() * (words.length - 1))
      words.splice(i, 2, `${words[i]}${words[i + 1]!.toLowerCase()}`)
      return words.join(' ')
    }
    const long = words.map((word, i) => [word, i] as const).filter(([word]) => /^[A-Za-z]{7,}$/.test(word))
    if (long.length === 0) return null
    const [word, i] = pick(long)
    const cut = 3 + Math.floor(next() * (word.length - 5))
    words[i] = `${word.slice(0, cut)} ${word.slice(cut)}`
    return words.join(' ')
  })
  positives('reordered', (entry) => {
    const words = pick(strongLatin(entry)).split(/\s+/).filter(Boolean)
    // Word order carries meaning around "bin", "ben", "ibn", "ould": those are not reorderings.
    if (words.length < 2 || words.some((word) => /^(?:bin|ben|ibn|ould|bint)$/i.test(word))) return null
    const order = shuffled(words)
    return order.join(' ') === words.join(' ') ? [...words.slice(1), words[0]].join(' ') : order.join(' ')
  })

  // Negatives.
  const negatives = (kind: NegativeKind, make: () => string | null, tries = options.perNegativeKind * 20) => {
    const seen = new Set<string>()
    for (let attempt = 0; attempt < tries && seen.size < options.perNegativeKind; attempt++) {
      const name = make()
      if (!name || seen.has(name) || normaliseName(name) === '' || isListed(name)) continue
      seen.add(name)
      queries.push({ kind, name, expected: null })
    }
  }
  const persons = lists.filter((entry) => entry.entry_type === 'person' && entry.name.includes(','))
  // Distinctive words of organisation names: 4+ letters, in at most three listed names.
  const wordCounts = new Map<string, number>()
  for (const entry of lists)
    for (const word of new Set(nameTokens(entry.name))) wordCounts.set(word, (wordCounts.get(word) ?? 0) + 1)
  const distinctive = (entry: SanctionsEntry) =>
    entry.name.split(/\s+/).filter((word) => {
      const token = nameTokens(word)[0]
      return token !== undefined && /^[a-z]{4,}$/.test(token) && (wordCounts.get(token) ?? 0) <= 3
    })
  const organisations = lists.filter(
    (entry) => entry.entry_type === 'entity' && distinctive(entry).length > 0,
  )
  negatives('recombined', () => {
    if (next() < 0.6) {
      const a = pick(persons).name.split(',')
      const b = pick(persons).name.split(',')
      const given = a[1]!.trim().split(/\s+/)[0]
      return given ? `${given} ${b[0]!.trim()}` : null
    }
    return `${pick(distinctive(pick(organisations)))} ${pick(distinctive(pick(organisations)))}`
  })
  const particleNames = lists
    .flatMap((entry) => (entry.entry_type === 'person' ? latinNames(entry).map(spoken) : []))
    .filter((name) => /\s(?:bin|ibn|ben|ould)\s/i.test(name))
  const patronymicNames = lists
    .flatMap((entry) => (entry.entry_type === 'person' ? latinNames(entry) : []))
    .filter((name) => /,\s*\S+\s+\S+(?:ovich|evich)$/i.test(name))
  negatives('father_son', () => {
    if (next() < 0.5 && particleNames.length > 0) {
      const words = pick(particleNames).split(/\s+/)
      const at = words.findIndex((word, i) => i > 0 && /^(?:bin|ibn|ben|ould)$/i.test(word))
      if (at <= 0 || at + 1 >= words.length) return null
      ;[words[at - 1], words[at + 1]] = [words[at + 1]!, words[at - 1]!]
      return words.join(' ')
    }
    const name = pick(patronymicNames)
    const [surname, given] = name.split(',').map((part) => part.trim())
    const [first, patronymic] = given!.split(/\s+/)
    const father = patronymic!.replace(/(?:ovich|evich)$/i, '')
    if (father.slice(0, 4).toLowerCase() === first!.slice(0, 4).toLowerCase()) return null
    const suffix = /[yijй]$/i.test(first!) ? 'evich' : 'ovich'
    return `${father} ${first!.replace(/[yj]$/i, '')}${suffix} ${surname}`
  })
  const personLocales = [
    fakerEN,
    fakerDE,
    fakerFR,
    fakerES,
    fakerIT,
    fakerNL,
    fakerPL,
    fakerTR,
    fakerRU,
    fakerAR,
  ]
  for (const [i, locale] of personLocales.entries()) locale.seed(options.seed * 100 + i)
  negatives('ordinary_person', () => {
    const locale = pick(personLocales)
    const name = `${locale.person.firstName()} ${locale.person.lastName()}`
    return (locale === fakerRU || locale === fakerAR) && next() < 0.5 ? transliterate(name) : name
  })
  negatives('ordinary_company', () => {
    const locale = pick(personLocales)
    const name = locale.company.name()
    return (locale === fakerRU || locale === fakerAR) && next() < 0.5 ? transliterate(name) : name
  })

  const entries = lists.map((entry) => masked.get(idOf(entry)) ?? entry)
  return { entries, queries }
}

const KEYBOARD_NEIGHBOURS: Readonly<Record<string, string>> = {
  a: 'qsz',
  b: 'vgn',
  c: 'xdv',
  d: 'sfe',
  e: 'wrd',
  f: 'dgr',
  g: 'fht',
  h: 'gjy',
  i: 'uok',
  j: 'hku',
  k: 'jli',
  l: 'ko',
  m: 'nj',
  n: 'bmh',
  o: 'ipl',
  p: 'ol',
  q: 'wa',
  r: 'etf',
  s: 'adw',
  t: 'ryg',
  u: 'yij',
  v: 'cfb',
  w: 'qes',
  x: 'zsc',
  y: 'tuh',
  z: 'xa',
}

/** One random edit inside a word (never its first letter): insert, delete, replace, swap. */
function typo(word: string, next: () => number): string {
  const lower = word.toLowerCase()
  const at = 1 + Math.floor(next() * (word.length - 1))
  const edit = Math.floor(next() * 4)
  const letter = (near: string | undefined) => {
    const options = near && next() < 0.7 ? KEYBOARD_NEIGHBOURS[near] : LETTERS
    return options![Math.floor(next() * options!.length)]!
  }
  const isUpper = word === word.toUpperCase()
  const cased = (text: string) => (isUpper ? text.toUpperCase() : text)
  switch (edit) {
    case 0:
      return word.slice(0, at) + cased(letter(lower[at])) + word.slice(at)
    case 1:
      return word.slice(0, at) + word.slice(at + 1)
    case 2:
      return word.slice(0, at) + cased(letter(lower[at])) + word.slice(at + 1)
    default:
      return at + 1 < word.length
        ? word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2)
        : word.slice(0, -1)
  }
}

/** Common alternations of Latin spellings of Arabic and Persian names. */
const ROMANISATION_ALTERNATIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/ou/i, 'u'],
  [/u/i, 'ou'],
  [/u/i, 'o'],
  [/o/i, 'u'],
  [/ee/i, 'i'],
  [/i/i, 'ee'],
  [/e/i, 'a'],
  [/a/i, 'e'],
  [/([bcdfghjklmnpqrstvwxz])\1/i, '$1'],
  [/([^aeiou\s])([aeiou])([mdlsnr])([aeiou])/i, '$1$2$3$3$4'],
  [/\bal-/i, 'el-'],
  [/\bal-/i, 'al '],
  [/q/i, 'k'],
  [/k/i, 'q'],
  [/dh/i, 'z'],
  [/y/i, 'i'],
]

function romanisationVariant(name: string, next: () => number): string {
  let result = name
  const changes = 1 + Math.floor(next() * 2)
  for (let i = 0; i < changes; i++) {
    const [pattern, replacement] =
      ROMANISATION_ALTERNATIONS[Math.floor(next() * ROMANISATION_ALTERNATIONS.length)]!
    const words = result.split(' ')
    const long = words.map((word, i) => [word, i] as const).filter(([word]) => word.length >= 4)
    if (long.length === 0) return result
    const w = long[Math.floor(next() * long.length)]![1]
    words[w] = words[w]!.replace(pattern, replacement)
    result = words.join(' ')
  }
  return result
}
