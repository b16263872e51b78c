/**
 * Name normalisation for sanctions screening. Spec (POST /v1/sanctions/screen): "Only exact
 * normalised or word-order-insensitive name matches". NAME_MATCHING.md beside this file states
 * every rule; name-normaliser.test.ts pins each one.
 *
 * The normaliser never transliterates between scripts and never drops words (legal forms such
 * as LLC or B.V. stay), so two names share a key only if they spell the same letters.
 */

/** Marks after a Latin or Greek letter are diacritics ("ü" = "u", "ά" = "α") and are dropped. */
const LATIN_GREEK_MARKS = /([\p{Script=Latin}\p{Script=Greek}])\p{M}+/gu
/** Optional Arabic vowel signs (harakat, superscript alef) and Hebrew points (niqqud, cantillation).
 * Hamza and madda (U+0653-U+0655) are kept: with their carrier they spell a different letter. */
const ARABIC_HEBREW_POINTS =
  /[\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7\u064B-\u0652\u0656-\u065F\u0670]/g
/** A mark with no letter before it (e.g. from NFKC of a spacing accent "´") carries nothing. */
const STRAY_MARKS = /(?<![\p{L}\p{N}\p{M}])\p{M}+/gu
/** Latin letters whose diacritic is part of the glyph (no decomposition), plus ligatures æ and œ. */
const FUSED_LATIN = /[łøđħŧƀɨæœ]/g
const FUSED_LATIN_BASE: Readonly<Record<string, string>> = {
  ł: 'l',
  ø: 'o',
  đ: 'd',
  ħ: 'h',
  ŧ: 't',
  ƀ: 'b',
  ɨ: 'i',
  æ: 'ae',
  œ: 'oe',
}
/** Apostrophes join: "Qa'ida" = "Qaida", "O’Brien" = "OBrien". Format characters (ZWJ, ZWNJ,
 * soft hyphen) and the Arabic tatweel are typographic only. */
const JOINERS = /['’‘ʼʻ`´ʹ\p{Cf}\u0640]/gu
/** Single letters separated by dots form one abbreviation: "S.A." = "SA", "U.S.A" = "USA". */
const DOTTED_ABBREVIATION = /(?<![\p{L}\p{N}\p{M}])\p{L}(?:\.\p{L})+\.?(?![\p{L}\p{N}\p{M}])/gu
const TOKEN = /[\p{L}\p{N}\p{M}]+/gu
const ASCII_ONLY = /^[\x20-\x7e]*$/
const ASCII_TOKEN = /[a-z0-9]+/g
const ASCII_DOTTED_ABBREVIATION = /(?<![a-z0-9])[a-z](?:\.[a-z])+\.?(?![a-z0-9])/g
const ASCII_JOINERS = /['`]/g

/** The two keys a name is indexed and screened under. */
export interface NameKeys {
  /** Tokens in their written order, joined by one space. */
  exact: string
  /** The same tokens sorted, joined by one space (word-order-insensitive key). */
  tokens: string
}

function removeDots(abbreviation: string): string {
  return abbreviation.replaceAll('.', '')
}

/**
 * Splits a name into normalised tokens: NFKC, case folding, Latin/Greek diacritics and
 * Arabic/Hebrew vowel points removed, apostrophes joined, dotted abbreviations joined, every other non-letter,
 * non-digit character a separator. Letters of every script are kept as they are.
 */
export function nameTokens(name: string): string[] {
  if (ASCII_ONLY.test(name)) {
    const lower = name.toLowerCase().replace(ASCII_JOINERS, '').replace(ASCII_DOTTED_ABBREVIATION, removeDots)
    return lower.match(ASCII_TOKEN) ?? []
  }
  const folded = name.normalize('NFKC').toUpperCase().toLowerCase()
  const stripped = folded
    .normalize('NFD')
    .replace(LATIN_GREEK_MARKS, '$1')
    .normalize('NFC')
    .replace(ARABIC_HEBREW_POINTS, '')
    .replace(STRAY_MARKS, '')
    .replace(FUSED_LATIN, (letter) => FUSED_LATIN_BASE[letter] ?? letter)
    .replace(JOINERS, '')
    .replace(DOTTED_ABBREVIATION, removeDots)
  return stripped.match(TOKEN) ?? []
}

/** The exact normalised key of a name ("" when the name has no letters or digits). */
export function normaliseName(name: string): string {
  return nameTokens(name).join(' ')
}

/** The word-order-insensitive key: normalised tokens sorted by code unit. */
export function tokenSortedKey(name: string): string {
  return nameTokens(name).sort().join(' ')
}

/** Both keys at once (one tokenisation); null when the name normalises to nothing. */
export function nameKeys(name: string): NameKeys | null {
  const tokens = nameTokens(name)
  if (tokens.length === 0) return null
  const exact = tokens.join(' ')
  if (tokens.length === 1) return { exact, tokens: exact }
  return { exact, tokens: tokens.sort().join(' ') }
}

const NON_LATIN_LETTER = /(?!\p{Script=Latin})\p{L}/u

/** True when every letter of the name is Latin; parsers mark other names `original_script`. */
export function isLatinName(name: string): boolean {
  return !NON_LATIN_LETTER.test(name)
}
