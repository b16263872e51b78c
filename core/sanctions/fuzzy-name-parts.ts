import anyAscii from 'any-ascii'
import { doubleMetaphone } from 'double-metaphone'
import { nameTokens } from './name-normaliser.ts'

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
}

export interface AnalysedName {
  parts: NamePart[]
  /** The script of the name's letters when not Latin ("latin" when mixed or Latin). */
  script: NameScript
}

/**
 * Person-name prefixes: rigour's PERSON_NAME_PREFIXES (OpenSanctions, MIT) that are one word,
 * plus the religious titles the UN and OFAC lists write in front of names (mullah, maulvi,
 * haji, qari). Only dropped at the start of a name that keeps two or more parts.
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
  const raw: Array<{ text: string; script: NameScript }> = []
  let nonLatin: NameScript | null = null
  for (const token of nameTokens(inWrittenOrder(name, kind))) {
    const script = scriptOf(token)
    if (script !== 'latin' && nonLatin === null) nonLatin = script
    if (script === 'latin') {
      const folded = foldNamePart(token)
      if (folded) raw.push({ text: folded, script })
    } else if (script === 'han' || script === 'hangul') {
      for (const syllable of anyAscii(token).split(SYLLABLE_START)) {
        const folded = syllable.toLowerCase().replace(NOT_ALPHANUMERIC, '')
        if (folded) raw.push({ text: folded, script })
      }
    } else {
      const folded = foldNamePart(token)
      if (folded) raw.push({ text: folded, script })
    }
  }
  const parts: NamePart[] = []
  let segment = 0
  let leading = true
  for (let i = 0; i < raw.length; i++) {
    const { text, script } = raw[i]!
    let role: NamePartRole = 'name'
    if (leading && kind !== 'organization' && HONORIFICS.has(text) && raw.length - i > 2) role = 'honorific'
    else if (kind !== 'person' && LEGAL_FORMS.has(text) && raw.length > 1) role = 'legal_form'
    else if (i > 0 && i < raw.length - 1 && PARTICLES.has(text)) role = 'particle'
    else if (ARTICLES.has(text) && i < raw.length - 1) role = 'article'
    else if (STOPWORDS.has(text) && raw.length > 1) role = 'stopword'
    if (role !== 'honorific') leading = false
    if (role === 'particle') segment++
    parts.push({ text, role, segment, script })
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
  [/gh/g, 'g'],
  [/sch|sh|ch/g, 's'],
  [/th/g, 's'],
  [/dh/g, 'z'],
  [/ph/g, 'f'],
  [/ou|oo/g, 'w'],
  [/ee/g, 'y'],
]

/**
 * The consonant skeleton of a part, for comparing Latin spellings with Arabic and Hebrew ones.
 * Written by hand because no library compares the two: Arabic and Hebrew script leave short
 * vowels out ("محمد" -> any-ascii "mhmd"), so "Muhammad", "Mohamed" and "mhmd" can only be
 * compared on their consonants. Vowels, the glides w/y/v (long vowels in those scripts) and
 * doubled letters are dropped, and letters that one Arabic letter is spelled with in Latin are
 * merged: kh -> x, sh/ch -> s, th -> s, dh -> z, q/c -> k, p -> b; a final h (ta marbuta, "Abdullah"
 * / "Abdulla") is dropped.
 */
export function consonantSkeleton(text: string): string {
  let value = text
  for (const [pattern, replacement] of SKELETON_DIGRAPHS) value = value.replace(pattern, replacement)
  value = value
    .replace(/[qc]/g, 'k')
    .replace(/p/g, 'b')
    .replace(/[aeiouywv0-9]/g, '')
    .replace(/(.)\1+/g, '$1')
  return value.endsWith('h') && value.length > 2 ? value.slice(0, -1) : value
}
