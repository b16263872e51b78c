import anyAscii from 'any-ascii'
import { doubleMetaphone } from 'double-metaphone'
import { createBoundedMemo } from './bounded-memo.ts'
import { nameTokens } from './name-normaliser.ts'
import { jaroWinkler, jaroWinklerBound, wordSimilarity, wordSimilarityBound } from './name-similarity.ts'

/**
 * Name analysis for fuzzy screening (NAME_MATCHING.md, "Fuzzy mode"): a name becomes a list of
 * Latin name parts, each with the role it plays. The exact screen never uses this; it keeps
 * its own keys (name-normaliser.ts).
 *
 * 1. The exact normaliser's tokens (NFKC, case folding, Latin/Greek diacritics and Arabic or
 *    Hebrew vowel points removed, apostrophes and dotted abbreviations joined).
 * 2. Each token transliterated to ASCII with any-ascii (Cyrillic, Greek, Arabic, Hebrew,
 *    Armenian, Georgian, Han, Hangul, kana, ...), lower case, letters and digits only. Han and
 *    Hangul tokens are split into their syllables ("김정은" -> gim jeong eun), as Latin
 *    spellings of Chinese and Korean names write them.
 * 3. Each part gets a role: an honorific at the start of a person's name ("Mr", "Sheikh"),
 *    an organisation's legal form ("LLC", "OOO", "GmbH", "B.V."), a patronymic particle ("bin",
 *    "ibn", "ben", "bint", "ould"), an Arabic article ("al", "el"), a connecting word ("of",
 *    "de", "and"), or a name word. Particles open a new segment: the words after "bin" name the
 *    father, so "Salman bin Muhammad" and "Muhammad bin Salman" align their words only within
 *    the same segment.
 */

export type NamePartRole = 'name' | 'particle' | 'article' | 'honorific' | 'legal_form' | 'stopword'

/** The script family a name part was written in; `abjad` marks Arabic and Hebrew (no short vowels). */
export type NameScript =
  | 'latin'
  | 'cyrillic'
  | 'greek'
  | 'arabic'
  | 'hebrew'
  | 'armenian'
  | 'georgian'
  | 'han'
  | 'hangul'
  | 'kana'
  | 'other'

export interface NamePart {
  /** ASCII lower-case form (after transliteration). */
  text: string
  role: NamePartRole
  /** 0 before the first patronymic particle, then 1, 2, ... */
  segment: number
  /** The script the part was written in. */
  script: NameScript
  /** Consonant skeleton (abjadSkeleton) of a part written in Arabic or Hebrew; '' otherwise. */
  skeleton: string
  /** Every reading of an Arabic or Hebrew part's skeleton (abjadSkeletons, `skeleton` first); [] otherwise. */
  skeletons: readonly string[]
}

export interface AnalysedName {
  parts: NamePart[]
  /** The script of the name's letters when not Latin ("latin" when mixed or Latin). */
  script: NameScript
}

/**
 * Person-name prefixes: rigour's PERSON_NAME_PREFIXES (OpenSanctions, MIT) that are one word,
 * plus the religious titles the UN and OFAC lists write in front of names (mullah, maulvi,
 * haji, qari; and SEYED_TITLES). Only dropped at the start of a name that keeps two or more
 * parts.
 */
const HONORIFICS = new Set([
  'admiral',
  'amb',
  'ambassador',
  'baron',
  'baroness',
  'brigadier',
  'capt',
  'captain',
  'col',
  'colonel',
  'dame',
  'doctor',
  'dr',
  'excellency',
  'fr',
  'frau',
  'general',
  'haji',
  'hajji',
  'herr',
  'hon',
  'honorable',
  'honourable',
  'imam',
  'lady',
  'lord',
  'madam',
  'madame',
  'maj',
  'major',
  'maulana',
  'maulavi',
  'maulvi',
  'mawlawi',
  'miss',
  'mister',
  'mme',
  'monsieur',
  'mr',
  'mrs',
  'ms',
  'mulla',
  'mullah',
  'mx',
  'prof',
  'professor',
  'qari',
  'reverend',
  'senor',
  'senora',
  'shaikh',
  'sheik',
  'sheikh',
  'sir',
])

/**
 * Organisation legal forms as they appear in list names once folded: the abbreviations and
 * words of rigour's org_types.yml (OpenSanctions, MIT) that sanctioned parties use, in Latin
 * and (folded from Cyrillic) "ooo", "oao", "zao", "pao", "tov". They say what kind of body it
 * is, not which one, so they weigh nothing in the name score.
 */
const LEGAL_FORMS = new Set([
  'ab',
  'ag',
  'ao',
  'aps',
  'as',
  'asa',
  'bhd',
  'bv',
  'cjsc',
  'co',
  'company',
  'corp',
  'corporation',
  'cv',
  'dd',
  'dmcc',
  'doo',
  'eood',
  'fze',
  'fzc',
  'fzco',
  'fzllc',
  'gmbh',
  'inc',
  'incorporated',
  'jsc',
  'kft',
  'kg',
  'llc',
  'llp',
  'lp',
  'ltd',
  'ltda',
  'limited',
  'mchj',
  'nv',
  'oao',
  'ojsc',
  'ood',
  'ooo',
  'oy',
  'oyj',
  'pao',
  'pjsc',
  'plc',
  'pt',
  'pte',
  'pty',
  'sa',
  'sae',
  'sal',
  'sarl',
  'sas',
  'sdn',
  'sl',
  'spa',
  'srl',
  'sro',
  'tov',
  'wll',
  'zao',
  'zrt',
])

/**
 * Legal forms written out in words, as word sequences ("joint stock company", "obshchestvo s
 * ogranichennoi otvetstvennostiu" for ООО): every word of the sequence is a legal form. Words
 * compare by Jaro-Winkler 0.85 so other romanisations ("aktsionernoe" / "akcionernoe") and typos
 * ("compnay") are still recognised. Arabic "sharika" (شركة, company), "mu'assasa" (مؤسسة,
 * establishment) and "al-mahduda" (المحدودة, limited) come from rigour's org symbols.
 */
const LEGAL_PHRASES: readonly (readonly string[])[] = [
  ['limited', 'liability', 'company'],
  ['limited', 'liability', 'partnership'],
  ['closed', 'joint', 'stock', 'company'],
  ['open', 'joint', 'stock', 'company'],
  ['public', 'joint', 'stock', 'company'],
  ['joint', 'stock', 'company'],
  ['private', 'limited', 'company'],
  ['public', 'limited', 'company'],
  ['joint', 'venture'],
  ['obshchestvo', 's', 'ogranichennoi', 'otvetstvennostiu'],
  ['obshchestvo', 's', 'ogranichennoy', 'otvetstvennostyu'],
  ['zakrytoe', 'aktsionernoe', 'obshchestvo'],
  ['otkrytoe', 'aktsionernoe', 'obshchestvo'],
  ['publichnoe', 'aktsionernoe', 'obshchestvo'],
  ['aktsionernoe', 'obshchestvo'],
  ['sociedad', 'anonima'],
  ['societe', 'anonyme'],
  ['sociedad', 'limitada'],
]
/**
 * Arabic legal-form words as any-ascii folds them: sharika (شركة, company), mu'assasa (مؤسسة,
 * establishment), al-mahduda (المحدودة, limited), from rigour's org symbols. Equal text only:
 * they are folded Arabic letters, not Latin words a typo could reach, and compared loosely
 * "mussh" would take the common given name "Mussa" (Musa) for a legal form.
 */
const ARABIC_LEGAL_WORDS = new Set(['shrkh', 'mussh', 'lmhdwdh'])
/** Long legal-form words that a typo should not turn into name words ("limiwed", "compnay"). */
const LONG_LEGAL_FORMS = ['limited', 'company', 'corporation', 'incorporated', 'gesellschaft']
/** Long honorifics likewise ("Genera", "Profesor"). */
const LONG_HONORIFICS = ['general', 'colonel', 'professor', 'captain', 'brigadier', 'admiral', 'sheikh']

/**
 * Answers of closeTo per form list, by word: the index build asks about the same words (and
 * adjacent pairs) of 55,000 names over and over, and each answer costs a string comparison
 * per form. Dropped after each build (forgetNameAnalysisAnswers) and whenever it grows past
 * CLOSE_TO_CACHE_MAX words, so queries cannot grow it without bound.
 */
const closeToCache = new Map<readonly string[], Map<string, boolean>>()
const CLOSE_TO_CACHE_MAX = 100_000

/**
 * Drops the answers kept per word (closeTo, phraseFormsOf, consonantSkeletons, skeletonLetters): called when an
 * index build is done, so the memory the build's words take lasts as long as the build, not as
 * long as the index.
 */
export function forgetNameAnalysisAnswers(): void {
  closeToCache.clear()
  phraseFormsCache.clear()
  skeletonMemo.clear()
  letterMemo.clear()
}

function closeTo(word: string, forms: readonly string[]): boolean {
  if (word.length < 5) return false
  let cache = closeToCache.get(forms)
  if (!cache) {
    cache = new Map()
    closeToCache.set(forms, cache)
  }
  const known = cache.get(word)
  if (known !== undefined) return known
  let close = false
  for (const form of forms) {
    // The bound first (exact: it is never under the similarity, name-similarity.ts).
    if (
      Math.abs(form.length - word.length) <= 2 &&
      wordSimilarityBound(word, form) >= 0.83 - 1e-9 &&
      wordSimilarity(word, form) >= 0.83
    ) {
      close = true
      break
    }
  }
  if (cache.size >= CLOSE_TO_CACHE_MAX) cache.clear()
  cache.set(word, close)
  return close
}

const PHRASE_FORMS = [...new Set(LEGAL_PHRASES.flat().filter((form) => form.length > 2))]
const phraseFormsCache = new Map<string, ReadonlySet<string>>()

/** The legal-phrase words a word stands for (Jaro-Winkler 0.85 or more), once per word (see closeToCache). */
function phraseFormsOf(word: string): ReadonlySet<string> {
  let forms = phraseFormsCache.get(word)
  if (forms === undefined) {
    forms = new Set(
      PHRASE_FORMS.filter(
        (form) => jaroWinklerBound(word, form) >= 0.85 - 1e-9 && jaroWinkler(word, form) >= 0.85,
      ),
    )
    if (phraseFormsCache.size >= CLOSE_TO_CACHE_MAX) phraseFormsCache.clear()
    phraseFormsCache.set(word, forms)
  }
  return forms
}

/** Marks the words of written-out legal forms (LEGAL_PHRASES) found in a folded name. */
function legalPhraseWords(words: readonly string[]): Set<number> {
  const marked = new Set<number>()
  for (const phrase of LEGAL_PHRASES) {
    for (let start = 0; start + phrase.length <= words.length; start++) {
      let all = true
      for (let i = 0; i < phrase.length && all; i++) {
        const word = words[start + i]!
        const form = phrase[i]!
        all = word === form || phraseFormsOf(word).has(form)
      }
      if (all) for (let i = 0; i < phrase.length; i++) marked.add(start + i)
    }
  }
  for (let i = 0; i < words.length; i++) if (ARABIC_LEGAL_WORDS.has(words[i]!)) marked.add(i)
  // A legal-form word split in two ("lia bility", "comp any").
  for (let i = 0; i + 1 < words.length; i++) {
    const joined = words[i]! + words[i + 1]!
    if (LEGAL_FORMS.has(joined) || closeTo(joined, LONG_LEGAL_FORMS) || closeTo(joined, PHRASE_WORDS)) {
      marked.add(i)
      marked.add(i + 1)
    }
  }
  return marked
}

const PHRASE_WORDS = [...new Set(LEGAL_PHRASES.flat().filter((word) => word.length >= 5))]

/** Patronymic particles ("son/daughter of"): rigour's BIN and BINT symbols, folded to ASCII. */
const PARTICLES = new Set(['bin', 'ibn', 'ben', 'bint', 'binti', 'bent', 'ould', 'walad', 'bn'])
/** Arabic definite articles written as their own word ("al-Assad", "el Masri"). */
const ARTICLES = new Set(['al', 'el', 'ul'])
/** Connecting words of organisation and person names (a subset of rigour's STOPWORDS). */
const STOPWORDS = new Set([
  'and',
  'da',
  'das',
  'de',
  'del',
  'della',
  'der',
  'des',
  'di',
  'die',
  'do',
  'dos',
  'du',
  'et',
  'for',
  'in',
  'la',
  'le',
  'les',
  'of',
  'the',
  'und',
  'van',
  'von',
  'y',
])

const SCRIPT_TESTS: ReadonlyArray<readonly [NameScript, RegExp]> = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['han', /\p{Script=Han}/u],
  ['hangul', /\p{Script=Hangul}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['greek', /\p{Script=Greek}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['armenian', /\p{Script=Armenian}/u],
  ['georgian', /\p{Script=Georgian}/u],
]
/**
 * Seyed / Sayyid, the title of the Prophet's descendants, which Persian and Iraqi names carry in
 * front of the given name and Latin spellings keep or leave out at will; and سيد / سید, as
 * written (سعيد, Saeed, folds to the same Latin letters), the one Arabic-script title in front
 * of listed names. It is also a given name ("Sayyid al-Dajani"), so it is a title only with two
 * words after it, articles aside (wordsAfter).
 */
const SEYED_TITLES = new Set(['sayed', 'sayyed', 'sayyid', 'seyed', 'seyyed', 'seyyid'])
const ABJAD_HONORIFICS = new Set(['سيد', 'سید'])

function isSeyed(text: string, script: NameScript, written: string): boolean {
  return isAbjad(script) ? ABJAD_HONORIFICS.has(written.normalize('NFKC')) : SEYED_TITLES.has(text)
}

/** Parts after the i-th that are not articles ("Sayyid al-Dajani" keeps one name word after the title). */
function wordsAfter(raw: ReadonlyArray<{ text: string }>, i: number): number {
  let words = 0
  for (let j = i + 1; j < raw.length; j++) if (!ARTICLES.has(raw[j]!.text)) words++
  return words
}

const ASCII_WORD = /^[a-z0-9]+$/
const NOT_ALPHANUMERIC = /[^a-z0-9]+/g
const SYLLABLE_START = /(?=[A-Z])/

function scriptOf(token: string): NameScript {
  if (ASCII_WORD.test(token)) return 'latin'
  for (const [script, test] of SCRIPT_TESTS) if (test.test(token)) return script
  return 'other'
}

const ONE_COMMA = /^([^,]+),([^,]+)$/

/**
 * "Surname, Given names" (how OFAC and many registers write persons) in the order the name is
 * said, "Given names Surname", so a patronymic particle keeps its place ("AL-WALID, Mahfouz
 * Ould" -> "Mahfouz Ould AL-WALID"). Organisation names keep their commas' order.
 */
function inWrittenOrder(name: string, kind: 'person' | 'organization' | 'any'): string {
  if (kind === 'organization') return name
  const match = ONE_COMMA.exec(name)
  return match ? `${match[2]!.trim()} ${match[1]!.trim()}` : name
}

/** One name part folded the way the matcher compares it: any-ascii, lower case, a-z and 0-9. */
export function foldNamePart(part: string): string {
  return anyAscii(part.normalize('NFKC')).toLowerCase().replace(NOT_ALPHANUMERIC, '')
}

/** True for scripts that leave short vowels unwritten, compared by consonant skeleton. */
export function isAbjad(script: NameScript): boolean {
  return script === 'arabic' || script === 'hebrew'
}

/**
 * Splits a name into its analysed parts (see the file comment). `kind` says whether honorifics
 * (persons) or legal forms (organisations) are recognised; `any` recognises both.
 */
export function analyseName(name: string, kind: 'person' | 'organization' | 'any' = 'any'): AnalysedName {
  const raw: Array<{ text: string; script: NameScript; skeletons: readonly string[]; written: string }> = []
  let nonLatin: NameScript | null = null
  for (const token of nameTokens(inWrittenOrder(name, kind))) {
    const script = scriptOf(token)
    if (script !== 'latin' && nonLatin === null) nonLatin = script
    if (script === 'han' || script === 'hangul') {
      for (const syllable of anyAscii(token).split(SYLLABLE_START)) {
        const folded = syllable.toLowerCase().replace(NOT_ALPHANUMERIC, '')
        if (folded) raw.push({ text: folded, script, skeletons: [], written: token })
      }
    } else {
      const folded = foldNamePart(token)
      const skeletons = isAbjad(script) ? abjadSkeletons(token) : []
      if (folded) raw.push({ text: folded, script, skeletons, written: token })
    }
  }
  const parts: NamePart[] = []
  let segment = 0
  let leading = true
  const legalWords =
    kind === 'person' || raw.length < 2 ? new Set<number>() : legalPhraseWords(raw.map((part) => part.text))
  for (let i = 0; i < raw.length; i++) {
    const { text, script, skeletons, written } = raw[i]!
    let role: NamePartRole = 'name'
    if (
      leading &&
      kind !== 'organization' &&
      // Latin titles, so not a folded Arabic-script word that spells one (عامر, the given name
      // Amer, folds to "mr"); of the Arabic-script ones only سيد (Seyed) as written.
      (isSeyed(text, script, written)
        ? wordsAfter(raw, i) >= 2
        : !isAbjad(script) && (HONORIFICS.has(text) || closeTo(text, LONG_HONORIFICS)) && raw.length - i > 2)
    ) {
      role = 'honorific'
    } else if (
      kind !== 'person' &&
      raw.length > 1 &&
      (LEGAL_FORMS.has(text) || legalWords.has(i) || closeTo(text, LONG_LEGAL_FORMS))
    ) {
      role = 'legal_form'
    } else if (i > 0 && i < raw.length - 1 && PARTICLES.has(text)) role = 'particle'
    // Latin articles and connecting words: an Arabic-script word that folds to one is a name
    // (على, the given name Ali written with alef maksura, folds to "la").
    else if (!isAbjad(script) && ARTICLES.has(text) && i < raw.length - 1) role = 'article'
    else if (!isAbjad(script) && STOPWORDS.has(text) && raw.length > 1) role = 'stopword'
    if (role !== 'honorific') leading = false
    if (role === 'particle') segment++
    parts.push({ text, role, segment, script, skeleton: skeletons[0] ?? '', skeletons })
  }
  return {
    parts,
    script: nonLatin !== null && raw.every((part) => part.script !== 'latin') ? nonLatin : 'latin',
  }
}

/**
 * Double Metaphone codes of a part (primary, and secondary when it differs): the phonetic key
 * candidate generation and the phonetic comparison use. Parts shorter than 3 letters and
 * codes shorter than 2 carry too little to compare by sound.
 */
export function phoneticKeys(text: string): string[] {
  if (text.length < 3 || !/^[a-z]/.test(text)) return []
  const [primary, secondary] = doubleMetaphone(text)
  const keys: string[] = []
  if (primary.length >= 2) keys.push(primary)
  if (secondary.length >= 2 && secondary !== primary) keys.push(secondary)
  return keys
}

/** The first letter of the primary phonetic code: two spellings of one name start alike. */
export function soundClass(text: string): string {
  return doubleMetaphone(text)[0].slice(0, 1)
}

const SKELETON_DIGRAPHS: ReadonlyArray<readonly [RegExp, string]> = [
  [/kh/g, 'x'],
  [/gh/g, 'k'],
  [/sch|sh|ch/g, 's'],
  [/th/g, 's'],
  [/dh/g, 'd'],
  [/ph/g, 'f'],
  [/ou|oo/g, 'w'],
  [/ee/g, 'y'],
]

/** Letters one Arabic or Persian letter is spelled with in Latin, merged into one class (vowels kept). */
export function skeletonLetters(text: string): string {
  return letterMemo.get(text, () => mergeSkeletonLetters(text))
}

/**
 * skeletonLetters' answers for the words read lately: the split search compares each half of a
 * long query word with many short listed words, letter class by letter class.
 */
const letterMemo = createBoundedMemo<string>(8_192)

function mergeSkeletonLetters(text: string): string {
  let value = text
  for (const [pattern, replacement] of SKELETON_DIGRAPHS) value = value.replace(pattern, replacement)
  return value.replace(/[qcg]/g, 'k').replace(/z/g, 'd').replace(/p/g, 'b')
}

/** Vowels and glides out, doubled letters once, a final h (ta marbuta) dropped. */
function finishSkeleton(letters: string): string {
  const value = letters.replace(/(.)\1+/g, '$1').replace(/[aeiouywv0-9]/g, '')
  return value.endsWith('h') && value.length > 2 ? value.slice(0, -1) : value
}

/**
 * The consonant skeleton of a Latin part, for comparing Latin spellings with Arabic and Hebrew
 * ones. Written by hand because no library compares the two: Arabic and Hebrew script leave
 * short vowels out ("محمد" is m-h-m-d), so "Muhammad", "Mohamed" and محمد can only be compared
 * on their consonants. Vowels, the glides w/y/v (long vowels in those scripts) and doubled
 * letters are dropped, and the letters one Arabic or Persian letter is spelled with in Latin are
 * merged: kh -> x; sh/ch -> s; th -> s; q/gh/g/c -> k (ق is "gh" in Persian: Gholi / قلی);
 * z/dh/d -> d (ض is "d" in Arabic, "z" in Persian: Ramadan / Ramazan, Reza / رضا); p -> b. A final h
 * (ta marbuta: "Abdullah" / "Abdulla") is dropped.
 */
export function consonantSkeleton(text: string): string {
  return finishSkeleton(skeletonLetters(text))
}

/**
 * Latin spellings that stand for more than one Arabic-script letter (or pair of letters), with
 * every class they may be read as; the first reading is the one consonantSkeleton uses. Written
 * by hand for the same reason as consonantSkeleton: transliteration libraries (any-ascii
 * included) go from the script to Latin, and pick one spelling; reading a Latin spelling back
 * means keeping every letter it may have come from.
 * - sh: ش, or س + ح/ه ("Eshaghi" / اسحقی);
 * - ch: ش in French spellings ("Chami"), چ in Persian and Turkish ones ("Kocak" / کوچک);
 * - th: ث, ت + ح/ه ("Fathi" / فتحی), ذ ("Natheer" / نذير);
 * - dh: ذ ض ظ, or د + ه ("Dehghan" is not one, but "Adham" / أدهم is);
 * - zh: ژ ("Nezhad" / نژاد, also spelled "Nejad"), or ز + ه;
 * - c: ک, or چ (Turkish ç);
 * - k: ک ق, or خ, which Turkish and some Persian spellings write k ("Abdulkaliq" / عبد الخالق);
 * - g: ق غ گ, or ج in Egyptian spellings ("Gamal" / جمال, "Gebran" / جبران);
 * - v: و in Persian spellings, or ف in Arabic spellings of European names ("David" / ديفيد).
 */
export const LATIN_READINGS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['sch', ['s']],
  ['kh', ['x']],
  ['gh', ['k']],
  ['sh', ['s', 'sh']],
  ['ch', ['s', 'c']],
  ['th', ['s', 'th', 'd']],
  ['dh', ['d', 'dh']],
  ['zh', ['j', 'dh']],
  ['dj', ['j']],
  ['ph', ['f']],
  ['ou', ['w']],
  ['oo', ['w']],
  ['ee', ['y']],
  ['c', ['k', 'c']],
  ['k', ['k', 'x']],
  ['g', ['k', 'j']],
  ['q', ['k']],
  ['z', ['d']],
  ['p', ['b']],
  ['v', ['v', 'f']],
]
/** LATIN_READINGS by their first letter, each list in LATIN_READINGS' order (the first that matches wins). */
const READINGS_BY_LETTER = new Map<string, Array<readonly [string, readonly string[]]>>()
for (const reading of LATIN_READINGS) {
  const list = READINGS_BY_LETTER.get(reading[0][0]!)
  if (list) list.push(reading)
  else READINGS_BY_LETTER.set(reading[0][0]!, [reading])
}
/** Readings of a Latin part kept at most (the product of its ambiguous letters). */
const MAX_SKELETON_READINGS = 12
/** Consonant waw and yeh (a word's first letter) are written upper case until the vowels are out. */
export const CONSONANT_GLIDES: Readonly<Record<string, string>> = { w: 'W', v: 'W', y: 'Y' }

/** Letters consonantsOf leaves out, by UTF-16 code unit: a e i o u y w v and the digits. */
const NOT_CONSONANT = new Uint8Array(128)
for (const letter of 'aeiouywv0123456789') NOT_CONSONANT[letter.charCodeAt(0)] = 1

/**
 * Vowels and glides out (consonant glides kept), doubled letters once: a run of one letter is
 * read as one before the vowels go, so "bab" keeps both b's. One pass over the code units (it
 * runs for every reading of every word and word half a screen reads), the same answer as
 * replace(/(.)\1+/g, '$1'), then replace(/[aeiouywv0-9]/g, ''), then toLowerCase(): a line
 * terminator, which "." does not match, is never merged with the next.
 */
function consonantsOf(letters: string): string {
  let out = ''
  let previous = -1
  for (let i = 0; i < letters.length; i++) {
    const code = letters.charCodeAt(i)
    if (code === previous) continue
    previous = code === 10 || code === 13 || code === 0x2028 || code === 0x2029 ? -1 : code
    if (code < 128 && NOT_CONSONANT[code] === 1) continue
    out += letters[i]!
  }
  return out.toLowerCase()
}

/**
 * Every consonant skeleton a Latin part may have, for comparing it with Arabic-script
 * skeletons (abjadSkeletons): each ambiguous spelling (LATIN_READINGS) read every way; a first
 * w, v or y read as a consonant (و, ی: "Vali" / ولی, "Yousef" / يوسف) and as a vowel ("Ayoub"
 * starts with the alef); a final h kept (ح: "Saleh" / صالح) and dropped (ه, ة: "Abdullah" /
 * عبدالله, "Fatemeh" / فاطمه); and "Abdul", "Abdel" also without the article's l, for lists
 * that write عبد apart from the next word (عبد الواحد). At most MAX_SKELETON_READINGS.
 */
export function consonantSkeletons(text: string): readonly string[] {
  return skeletonMemo.get(text, () => Object.freeze(readSkeletons(text)))
}

/**
 * consonantSkeletons' answers for the words screened lately: every query word, and the halves
 * the split search cuts long words into, is read again by the next screen that has it.
 */
const skeletonMemo = createBoundedMemo<readonly string[]>(8_192)

function readSkeletons(text: string): string[] {
  const units: Array<readonly string[]> = []
  for (let at = 0; at < text.length; ) {
    const first = at === 0 ? CONSONANT_GLIDES[text[0]!] : undefined
    if (first !== undefined && text.length > 2) {
      units.push([first, ''])
      at++
      continue
    }
    const reading = READINGS_BY_LETTER.get(text[at]!)?.find(([spelling]) => text.startsWith(spelling, at))
    if (reading) {
      units.push(reading[1])
      at += reading[0].length
    } else if (text[at] === 'h' && at === text.length - 1 && at > 1) {
      units.push(['', 'h'])
      at++
    } else {
      units.push([text[at]!])
      at++
    }
  }
  let readings = ['']
  for (const options of units) {
    if (options.length === 1 || readings.length * options.length > MAX_SKELETON_READINGS) {
      readings = readings.map((reading) => reading + options[0]!)
    } else readings = readings.flatMap((reading) => options.map((option) => reading + option))
  }
  const skeletons = new Set(readings.map(consonantsOf))
  if (/^abd[aeiou]l$/.test(text)) skeletons.add('bd')
  skeletons.delete('')
  return [...skeletons]
}

/** Arabic-script letters whose any-ascii spelling would put them in the wrong class. */
const ABJAD_LETTER_CLASSES: Readonly<Record<string, string>> = {
  // چ is "ch" in any-ascii, which reads as ش: it is its own class, as Latin c and ch may be.
  چ: 'c',
  // ژ is "zh": it is spelled j as often ("Nejad" / نژاد).
  ژ: 'j',
  // Alef (and the hamza letters) is a vowel that any-ascii leaves out; it keeps two equal
  // consonants apart (عدنان is d-n-n, as "Adnan" is), as a Latin vowel does.
  ا: 'a',
  أ: 'a',
  إ: 'a',
  ء: 'a',
  ع: 'a',
}
/** Letters that may end a word as a vowel (ta marbuta, final heh): "Fatima" / فاطمة, "Nehme" / نعمة. */
const FINAL_VOWEL_LETTERS = new Set(['ة', 'ه', 'ۀ'])
const TA_MARBUTA = 'ة'
const INITIAL_GLIDES: Readonly<Record<string, string>> = { و: 'W', ی: 'Y', ي: 'Y', ى: 'Y' }
const ARABIC_LETTER = /\p{L}/u

/** The skeleton of Arabic-script letters (at least the first is kept), with its readings. */
function abjadReadings(letters: readonly string[]): string[] {
  if (letters.length === 0) return []
  const classes = letters.map(
    (letter) =>
      ABJAD_LETTER_CLASSES[letter] ??
      skeletonLetters(anyAscii(letter).toLowerCase().replace(NOT_ALPHANUMERIC, '')),
  )
  const last = letters.length - 1
  if (letters.length > 2 && FINAL_VOWEL_LETTERS.has(letters[last]!)) {
    const without = consonantsOf(classes.slice(0, last).join(''))
    // ة is always the feminine ending, never a spoken h ("Azza" / عزة); a final ه is, when it
    // would leave one consonant alone ("Taha" / طه).
    if (without.length >= 2 || (letters[last] === TA_MARBUTA && without.length === 1)) classes[last] = ''
  }
  const readings = [consonantsOf(classes.join(''))]
  const glide = INITIAL_GLIDES[letters[0]!]
  if (glide !== undefined && letters.length > 2)
    readings.push(consonantsOf(glide + classes.slice(1).join('')))
  return readings
}

/**
 * Every consonant skeleton of a part written in Arabic or Hebrew script, from its letters
 * (NFKC first, so presentation forms such as ﺧﺎﺩﻡ are the letters خادم): each letter is
 * transliterated on its own (any-ascii) before the merges, so two letters never read as one
 * digraph (ت + ح is t-h, not the "th" of ث). The first is the skeleton with waw and yeh read as
 * vowels; then with a first و or ی read as a consonant ("Vali" / ولی); then, for a word that
 * begins with the article ال, the same without it ("Assad" / الأسد). A final ه or ة is a vowel
 * (ta marbuta), a final ح is not ("Fathi" / فتحی keeps its h, "Fatima" / فاطمة does not).
 */
export function abjadSkeletons(word: string): string[] {
  const letters = [...word.normalize('NFKC')].filter((char) => ARABIC_LETTER.test(char))
  const skeletons = abjadReadings(letters)
  if (letters.length > 3 && letters[0] === 'ا' && letters[1] === 'ل')
    skeletons.push(...abjadReadings(letters.slice(2)))
  else if (skeletons[0]!.length >= 3 && skeletons[0]!.startsWith('l')) skeletons.push(skeletons[0]!.slice(1))
  const inner = innerArticle(letters)
  if (inner > 0) skeletons.push(...abjadReadings([...letters.slice(0, inner), ...letters.slice(inner + 2)]))
  return [...new Set(skeletons)].filter((skeleton) => skeleton.length > 0)
}

/**
 * Where the article ال stands inside a compound written as one word, between two words of three
 * letters or more (ابوالقاسم Abu al-Qasim, عبدالرحمن Abd al-Rahman, ناصرالدين Nasir al-Din); -1
 * when it does not. Latin spellings often leave it out or write it as the doubled letter it is
 * said as ("Abughasem", "Abdurrahman", "Nasruddin"), so such a word is also read without it.
 */
function innerArticle(letters: readonly string[]): number {
  for (let i = 3; i + 2 + 3 <= letters.length; i++) {
    if (letters[i] === 'ا' && letters[i + 1] === 'ل') return i
  }
  return -1
}

/** The first of abjadSkeletons: waw and yeh read as vowels, the article kept. */
export function abjadSkeleton(word: string): string {
  return abjadSkeletons(word)[0] ?? ''
}
