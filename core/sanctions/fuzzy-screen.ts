import { z } from 'zod'
import { type BoundedMemo, createBoundedMemo } from './bounded-memo.ts'
import {
  buildFuzzyIndex,
  type FuzzyIndex,
  nameKindOf,
  ROLE_CODES,
  SCRIPT_CODES,
  tokensWithinOneEdit,
} from './fuzzy-index.ts'
import {
  analyseName,
  consonantSkeletons,
  forgetNameAnalysisAnswers,
  isAbjad,
  type NamePart,
  type NamePartRole,
  phoneticKeys,
  skeletonLetters,
} from './fuzzy-name-parts.ts'
import { abjadFormsOfLatin, isKnownAbjadForm, nameVariants } from './given-name-variants.ts'
import {
  EVIDENCE_EFFECTS,
  type EvidenceAdjustment,
  EvidenceAdjustmentSchema,
  evidenceAdjustments,
  type MatchEvidence,
} from './match-evidence.ts'
import { nameKeys } from './name-normaliser.ts'
import {
  jaroWinkler,
  wordSimilarity,
  wordSimilarityBound,
  wordSimilarityBoundFrom,
} from './name-similarity.ts'
import { REF_SLOTS, type SanctionsIndex } from './sanctions-index.ts'
import {
  baseMatch,
  DEFAULT_MATCH_LIMIT,
  LIST_ORDER,
  MATCH_SCORES,
  type MatchBasis,
  type SanctionsMatch,
} from './sanctions-screen.ts'
import type { SanctionsAlias, SanctionsEntry } from './types.ts'

/**
 * The fuzzy screen (NAME_MATCHING.md, "Fuzzy mode"): everything the exact screen finds, plus
 * names spelled differently from the listed ones: typos, other transliterations, Latin
 * spellings of names the lists publish in Cyrillic or Arabic, joined or split words, given-name
 * variants. Each match explains its score (score_breakdown).
 *
 * 1. Candidates: each name part of the query finds listed parts by exact text, spelling
 *    variant, phonetic key, shared first or last three letters and (against Arabic and Hebrew
 *    names) consonant skeleton; a listed part is kept when it compares at 0.8 or more. Names
 *    come from the postings of the rarest query parts (a name that matches must match at least
 *    one of them), so common words ("al", "company", "mohammed") never flood the scoring.
 * 2. Alignment: the query's parts are paired with a candidate name's parts, best pair first,
 *    one-to-one, also two parts against one joined part and back; pairs across a patronymic
 *    particle ("bin") count half.
 * 3. Score: sum of weight x similarity over aligned parts / (aligned weight + unaligned query
 *    weight + 0.25 x unaligned listed weight). Rare parts weigh more than common ones; legal
 *    forms and honorifics weigh nothing; a weak or low-quality alias scores x0.9. Extra query
 *    words weigh less when the listed person's name is wholly matched (QUERY_DETAIL_FACTOR),
 *    and the nasab an Arabic-script name carries weighs less when the query leaves it out
 *    (nasabFactor).
 * 4. Evidence (match-evidence.ts) moves the score; the threshold (default 0.78) decides.
 */

export const FUZZY_MATCH_TYPES = [
  'name_exact',
  'name_tokens',
  'name_fuzzy',
  'name_transliterated',
  'name_phonetic',
] as const
export type FuzzyMatchType = (typeof FUZZY_MATCH_TYPES)[number]

/** The fuzzy screen's default threshold, chosen on the benchmark's tuning seed (docs). */
export const DEFAULT_FUZZY_THRESHOLD = 0.78

/** How a query part was paired with a listed part. */
export const PartMethodSchema = z
  .enum(['exact', 'variant', 'phonetic', 'edit_distance', 'transliteration', 'joined', 'split', 'particle'])
  .describe(
    'exact: same letters; variant: known spelling of the same given name; phonetic: same Double Metaphone key; edit_distance: Jaro-Winkler; transliteration: consonant skeleton against an Arabic or Hebrew listed name; joined/split: two words against one; particle: bin/ibn/ben',
  )
export type PartMethod = z.infer<typeof PartMethodSchema>

export const ScoreBreakdownSchema = z
  .object({
    listed_name: z.string().describe('The listed name (primary or alias) that matched, as published'),
    listed_as: z.string().describe('The listed name as compared: folded, transliterated to Latin'),
    query_as: z.string().describe('The screened name as compared'),
    name_score: z.number().describe('Similarity of the two names before evidence, 0-1'),
    parts: z
      .array(
        z
          .object({
            query: z.string().describe('Part(s) of the screened name'),
            listed: z.string().describe('Part(s) of the listed name'),
            similarity: z.number().describe('0-1'),
            method: PartMethodSchema,
          })
          .strict(),
      )
      .describe('The aligned parts'),
    unmatched_query_parts: z.array(z.string()).describe('Parts of the screened name nothing matched'),
    unmatched_listed_parts: z.array(z.string()).describe('Parts of the listed name nothing matched'),
    ignored_parts: z.array(z.string()).describe('Honorifics and legal forms, which weigh nothing'),
    alias_factor: z.number().describe('1, or 0.9 for an alias the list marks weak or low quality'),
    evidence: z.array(EvidenceAdjustmentSchema).describe('Score adjustments from the evidence given'),
    threshold: z
      .number()
      .describe('The threshold the match passed (exact and word-order matches always pass)'),
  })
  .strict()
export type ScoreBreakdown = z.infer<typeof ScoreBreakdownSchema>

export type FuzzyMatch = Omit<SanctionsMatch, 'match_type'> & {
  match_type: FuzzyMatchType
  score_breakdown: ScoreBreakdown
}

export interface FuzzyScreenOptions extends MatchEvidence {
  /** ISO alpha-2; entries linked to it are ordered first. Never excludes a match. */
  country?: string
  /** 0-1; default DEFAULT_FUZZY_THRESHOLD. */
  threshold?: number
  limit?: number
}

export interface FuzzyScreenResult {
  matches: FuzzyMatch[]
  truncated: boolean
  total_matches: number
}

const ROLE_WEIGHT: Readonly<Record<NamePartRole, number>> = {
  name: 1,
  particle: 0.3,
  article: 0.15,
  stopword: 0.15,
  honorific: 0,
  legal_form: 0,
}
const UNMATCHED_LISTED_FACTOR = 0.25
/**
 * What an unmatched query word costs when the listed name is wholly matched (two name words or
 * more): a query with more detail than the list (yente's and Watchman's "query has more
 * detail"), not another person. Still more than an unmatched listed word costs.
 */
const QUERY_DETAIL_FACTOR = 0.35
/**
 * The same when every listed word pairs closely and in the same order as in the query
 * (closeAndInOrder): the query then holds the listed name as written, with words of its own
 * around it ("Taher Abdel Karim Kayali" / كيالي, طاهر).
 */
const CLOSE_QUERY_DETAIL_FACTOR = 0.2
/** Russian, Ukrainian and Belarusian patronymics as Latin spellings write them. */
const SLAVIC_PATRONYMIC = /(?:ovich|evich|ovych|evych|ovitch|evitch|ovna|evna|ivna|ichna|ovič|evič)$/
/** What a listed word costs that an Arabic-script name's nasab holds and the query leaves out (nasabFactor). */
const NASAB_FACTOR = 0.1
/** A pair this close or closer is more than a few consonants in common (closeAndInOrder). */
const CLOSE_PAIR_SIMILARITY = 0.9
/** The same for the query's nasab (betweenFactor in scoreName): a short word's skeleton pair too. */
const QUERY_NASAB_PAIR = 0.85
const PART_FLOOR = 0.8
const WEAK_ALIAS_FACTOR = 0.9
const CROSS_SEGMENT_FACTOR = 0.5
const VARIANT_SIMILARITY = 0.95
const PHONETIC_SIMILARITY = 0.86
/** A transliteration pair on a skeleton of one or two consonants. */
const SHORT_SKELETON_SIMILARITY = 0.85
/** Sounding alike is not enough for words that share few letters ("Mario" / "Mehri" are both MR). */
const PHONETIC_MIN_SIMILARITY = 0.7
/** Two one-word names (after legal forms) must agree this closely, or their score is cut. */
const ONE_WORD_SIMILARITY = 0.9
const ONE_WORD_FACTOR = 0.85
const SPLIT_SIMILARITY = 0.95
/**
 * Pairs of Arabic-script words one Latin word may be split into, per cut, at most: enough for a
 * common second word ("Amanolah" / امان الله, where الله reads as l, lh and many words share it).
 */
const SPLIT_READINGS_CAP = 1024
const SKELETON_FACTOR = 0.95
/** Candidate names scored at most per query; beyond it the rarest parts' names are kept. */
const CANDIDATE_CAP = 4000

const PARTICLE = ROLE_CODES.indexOf('particle')
const HONORIFIC = ROLE_CODES.indexOf('honorific')
/** Parts of a name that can be aligned (bit masks of 31 bits); longer names keep the rest unmatched. */
const MAX_PARTS = 30
const IGNORED_ROLES = new Set<NamePartRole>(['honorific', 'legal_form'])

const fuzzyIndexes = new WeakMap<SanctionsIndex, FuzzyIndex>()

/**
 * The fuzzy index of an exact index, built on first use and kept with it (so it is dropped
 * with it when the lists are rebuilt). The screening service warms it right after a rebuild.
 */
export function fuzzyIndexOf(index: SanctionsIndex): FuzzyIndex {
  let fuzzy = fuzzyIndexes.get(index)
  if (!fuzzy) {
    fuzzy = buildFuzzyIndex(index.entries)
    fuzzyIndexes.set(index, fuzzy)
  }
  return fuzzy
}

interface PairResult {
  sim: number
  method: PartMethod
}

interface QueryPart extends NamePart {
  abjad: boolean
  /** A Slavic patronymic ("Aleksandrovich"): an unmatched one costs in full (QUERY_DETAIL_FACTOR). */
  patronymic: boolean
  /** Role weight x rarity of the part in the lists (1 when no listed name has it). */
  weight: number
  /** Listed token id -> comparison (only those at PART_FLOOR or more); shared through the word memo, never changed. */
  matches: ReadonlyMap<number, PairResult>
}

/**
 * A Latin part against an Arabic or Hebrew one, on consonant skeletons (fuzzy-name-parts.ts):
 * the best of every reading of the Latin spelling (consonantSkeletons) against every reading of
 * the Arabic letters (abjadSkeletons: glides as consonants, without the article).
 */
function skeletonSimilarity(
  latin: readonly string[],
  abjad: readonly string[],
  latinText: string,
  abjadText = '',
): number {
  let best = 0
  for (let i = 0; i < latin.length; i++) {
    // "Abdul" read without its l is عبد written apart, nothing else ("Abdul" is not ابادی).
    if (latin[i] === ABD && abjadText !== ABD && ABD_ARTICLE.test(latinText)) continue
    for (const b of abjad) {
      const sim = readingSimilarity(latin[i]!, b, latinText, abjadText, i === 0)
      if (sim > best) best = sim
    }
  }
  return best
}

const ABD = 'bd'
const ABD_ARTICLE = /^abd[aeiou]l$/

/**
 * One Latin skeleton against one Arabic-script skeleton. Skeletons of one or two letters must be
 * equal; so must the other readings of a Latin spelling (`close` false): only its first reading
 * may differ by a letter, or each ambiguous spelling would double the words a name comes close to.
 */
function readingSimilarity(
  latin: string,
  abjad: string,
  latinText: string,
  abjadText: string,
  close: boolean,
): number {
  if (latin.length === 0 || abjad.length === 0) return 0
  // One or two consonants say little: they must be equal, and a one-consonant skeleton must
  // come from a short Latin word ("Ali" / علی), or from a short word of both scripts that begins
  // alike ("Ayad" / عياد, "Puya" / پویا; not "Popov" / ایوب).
  if (Math.min(latin.length, abjad.length) <= 2) {
    if (latin !== abjad) return 0
    if (latin.length === 1 && latinText.length > 3 && !shortWordsAgree(latinText, abjadText)) return 0
    // Two consonants whose long vowels the Latin word writes too, in order ("Zein" / الزين z-y-n,
    // "Mussa" / موسى m-w-s-a): the whole word agrees, not only two consonants of it. Not when the
    // folded Arabic letters are the two consonants alone (an alef folds to nothing: رضا and راد
    // are both "rd", and "Reza" spells both).
    if (
      latin.length === 2 &&
      spelledBeyondConsonants(abjadText) &&
      shortWordsAgree(latinText, abjadText, false)
    ) {
      return SKELETON_FACTOR
    }
    return SHORT_SKELETON_SIMILARITY
  }
  if (latin === abjad) return SKELETON_FACTOR
  return close ? jaroWinkler(latin, abjad) * SKELETON_FACTOR : 0
}

/** True when a reading of the Latin skeleton and one of the Arabic-script one begin alike. */
function sameFirstConsonant(latin: readonly string[], abjad: readonly string[]): boolean {
  for (const a of latin) for (const b of abjad) if (a[0] !== undefined && a[0] === b[0]) return true
  return false
}

/** True when the folded Arabic-script word (its article aside) writes more than two letters. */
function spelledBeyondConsonants(abjadFolded: string): boolean {
  const word = abjadFolded.length > 3 && abjadFolded.startsWith('l') ? abjadFolded.slice(1) : abjadFolded
  return word.length > 2
}

/** Latin letters each transliterated Arabic-script letter may be written with (the rest: itself). */
const LONG_VOWEL_SPELLINGS: Readonly<Record<string, string>> = {
  y: 'ieya',
  w: 'ouwv',
  a: 'aeo',
}

/**
 * A one-consonant word of at most seven Latin letters against an Arabic-script word of at most
 * five ("Babaei" / بابایی, "Qawook" / قاووق), also without its article (الزين, "Zein"): every
 * letter of the Arabic word's transliteration (its consonant and its long vowels y, w, a) is
 * found in the Latin word in order ("Ayad" / عياد "yd", "Eisa" / عیسی "ysy"; not "Popov" /
 * ایوب "ywb").
 */
function shortWordsAgree(latinText: string, abjadFolded: string, short = true): boolean {
  if (abjadFolded.length > 3 && abjadFolded.startsWith('l') && !latinText.startsWith('l')) {
    if (spelledInOrder(latinText, abjadFolded.slice(1), short)) return true
  }
  return spelledInOrder(latinText, abjadFolded, short)
}

/**
 * Latin letters for the long vowels when a two-consonant word is read in full: a yeh is written
 * i, e or y and an alef a, never the other way ("Asadi" is not سعید, "Reza" not راد).
 */
const STRICT_LONG_VOWEL_SPELLINGS: Readonly<Record<string, string>> = {
  y: 'iey',
  w: 'ouwv',
  a: 'a',
}

const FINAL_H_SPELLINGS = 'hae'

/**
 * Every letter of the Arabic word's transliteration in the Latin word, in order. `short`: both
 * words short, the long vowels read leniently; otherwise any length, read strictly.
 */
function spelledInOrder(latinText: string, abjadFolded: string, short: boolean): boolean {
  if (abjadFolded.length === 0 || (short && (latinText.length > 7 || abjadFolded.length > 5))) return false
  const latin = skeletonLetters(latinText)
  const abjad = skeletonLetters(abjadFolded)
  let at = 0
  for (let i = 0; i < abjad.length; i++) {
    const letter = abjad[i]!
    // A final h is mostly ta marbuta or a final heh, written a or e ("Dawla" / الدوله, "Juma" / جمعة).
    const spellings =
      i === abjad.length - 1 && letter === 'h' && abjad.length > 2
        ? FINAL_H_SPELLINGS
        : ((short ? LONG_VOWEL_SPELLINGS : STRICT_LONG_VOWEL_SPELLINGS)[letter] ?? letter)
    while (at < latin.length && !spellings.includes(latin[at]!)) at++
    if (at === latin.length) return false
    at++
  }
  return true
}

/** What compareNameParts needs of a part. */
export interface ComparablePart {
  text: string
  abjad: boolean
  /** Consonant skeletons, every reading: of the letters for abjad parts, of the Latin text otherwise. */
  skeletons: readonly string[]
}

/**
 * Compares a query part with a listed part; null when they are not alike enough to pair.
 * `samePhoneticKey` says whether the two share a Double Metaphone code (the index knows it
 * from candidate generation, so codes are never recomputed per pair).
 */
export function compareNameParts(
  query: ComparablePart,
  listed: ComparablePart,
  samePhoneticKey: boolean,
): PairResult | null {
  if (query.text === listed.text && query.abjad === listed.abjad) return { sim: 1, method: 'exact' }
  if (query.abjad !== listed.abjad) {
    const [latin, abjad] = query.abjad ? [listed, query] : [query, listed]
    const sim = skeletonSimilarity(latin.skeletons, abjad.skeletons, latin.text, abjad.text)
    // A Latin form the source pairs with the Arabic-script name (هادي: "Hadi", whose skeleton
    // of two consonants alone pairs at 0.85; موسى: "Moses", which no skeleton finds), when both
    // begin with the same consonant: the folded Arabic letters leave out the alef, so احمد and
    // حمد are both "hmd", and the source's pairs for one must not pair "Mohamed" with the other.
    if (
      sim < VARIANT_SIMILARITY &&
      sameFirstConsonant(latin.skeletons, abjad.skeletons) &&
      isKnownAbjadForm(latin.text, abjad.text)
    ) {
      return { sim: VARIANT_SIMILARITY, method: 'variant' }
    }
    return sim >= PART_FLOOR ? { sim, method: 'transliteration' } : null
  }
  const a = query.text
  return compareLatinWords(a, nameVariants(a), (b) => wordSimilarityBound(a, b), listed.text, samePhoneticKey)
}

/**
 * compareNameParts for two parts of the same script kind whose texts differ: `variants` are the
 * query word's (nameVariants(a)) and `bound` its wordSimilarityBound, which a caller comparing
 * one word with many prepares once.
 */
function compareLatinWords(
  a: string,
  variants: readonly string[],
  bound: (b: string) => number,
  b: string,
  samePhoneticKey: boolean,
): PairResult | null {
  if (a === b) return { sim: 1, method: 'exact' }
  let sim = 0
  let method: PartMethod = 'edit_distance'
  if (variants.includes(b)) {
    sim = VARIANT_SIMILARITY
    method = 'variant'
  }
  let close = -1
  // Skipped when even its upper bound could not pair the words (PART_FLOOR) nor back a
  // phonetic pair (PHONETIC_MIN_SIMILARITY): the outcome is the same, without the comparison.
  const needed = samePhoneticKey && a[0] === b[0] ? PHONETIC_MIN_SIMILARITY : PART_FLOOR
  if (
    ((Math.min(a.length, b.length) >= 4 && Math.abs(a.length - b.length) <= 3) ||
      isShortWordTruncation(a, b)) &&
    bound(b) >= needed - 1e-9
  ) {
    close = wordSimilarity(a, b)
    if (close > sim) {
      sim = close
      method = 'edit_distance'
    }
  }
  if (samePhoneticKey && PHONETIC_SIMILARITY > sim && a[0] === b[0] && close >= PHONETIC_MIN_SIMILARITY) {
    sim = PHONETIC_SIMILARITY
    method = 'phonetic'
  }
  return sim >= PART_FLOOR ? { sim, method } : null
}

/**
 * wordSimilarityBound for two words of these lengths whatever their letters: they share at most
 * the shorter's letters (Jaro at most (shorter / a + shorter / b + 1) / 3, and Jaro-Winkler at
 * most 0.4 of the rest above it, four letters of shared beginning), and Damerau-Levenshtein
 * needs at least the difference of the lengths.
 */
function lengthBound(a: number, b: number): number {
  const shorter = Math.min(a, b)
  const longer = Math.max(a, b)
  if (shorter === 0) return (0 + 1 - longer / longer) / 2
  const jaro = (shorter / a + shorter / b + 1) / 3
  const winkler = jaro >= 0.7 ? jaro + 4 * 0.1 * (1 - jaro) : jaro
  return (winkler + 1 - (longer - shorter) / longer) / 2
}

/**
 * A three-letter word that is a four-letter one with one letter left out, the first letter kept
 * ("Erc" / "Eric", "Yon" / "Yong"): the one typo a word this short may carry and still pair.
 */
function isShortWordTruncation(a: string, b: string): boolean {
  const [short, long] = a.length < b.length ? [a, b] : [b, a]
  if (short.length !== 3 || long.length !== 4 || short[0] !== long[0]) return false
  for (let i = 1; i < 4; i++) if (long.slice(0, i) + long.slice(i + 1) === short) return true
  return false
}

const VIA_PHONETIC = 1

/**
 * What candidateTokens collects into, kept with the index: the candidates in the order they
 * were first found (the order compareWithVocabulary and then candidateNames read them in), a
 * stamp per vocabulary token saying it is already among them, and its flags; and each token's
 * length, which the prefix and suffix lists are filtered by. A novel word meets about a hundred
 * candidates: typed arrays instead of a Map of them.
 */
interface CandidateScratch {
  order: number[]
  stamp: Uint32Array
  flags: Uint8Array
  clock: number
  tokenLength: Uint32Array
}

const candidateScratches = new WeakMap<FuzzyIndex, CandidateScratch>()

function candidateScratchOf(fuzzy: FuzzyIndex): CandidateScratch {
  let scratch = candidateScratches.get(fuzzy)
  if (!scratch) {
    const count = fuzzy.tokens.length
    scratch = {
      order: [],
      stamp: new Uint32Array(count),
      flags: new Uint8Array(count),
      clock: 0,
      tokenLength: Uint32Array.from(fuzzy.tokens, (token) => token.length),
    }
    candidateScratches.set(fuzzy, scratch)
  }
  return scratch
}

/** Adds a candidate (first time: at the end of the order), or ORs its flags in. */
function addCandidate(scratch: CandidateScratch, mark: number, id: number, flags: number): void {
  if (scratch.stamp[id] !== mark) {
    scratch.stamp[id] = mark
    scratch.flags[id] = flags
    scratch.order.push(id)
  } else scratch.flags[id]! |= flags
}

function addCandidates(
  scratch: CandidateScratch,
  mark: number,
  list: readonly number[] | undefined,
  flags: number,
): void {
  if (!list) return
  for (const id of list) addCandidate(scratch, mark, id, flags)
}

/**
 * Listed tokens a query part may match, into the scratch's order (in the order found), with
 * VIA_PHONETIC set in its flags when they share a phonetic code. Returns the stamp they carry.
 */
function candidateTokens(fuzzy: FuzzyIndex, part: QueryPart, scratch: CandidateScratch): number {
  scratch.order.length = 0
  if (scratch.clock >= 0xfffffff0) {
    scratch.stamp.fill(0)
    scratch.clock = 0
  }
  const mark = ++scratch.clock
  const exact = fuzzy.tokenIds.get(part.text)
  if (exact !== undefined) addCandidate(scratch, mark, exact, 0)
  for (const variant of nameVariants(part.text)) {
    const id = fuzzy.tokenIds.get(variant)
    if (id !== undefined) addCandidate(scratch, mark, id, 0)
  }
  if (!part.abjad) {
    // Arabic- and Hebrew-script names the source gives this Latin form (or a variant of it) for.
    for (const latin of [part.text, ...nameVariants(part.text)]) {
      for (const form of abjadFormsOfLatin(latin)) {
        const id = fuzzy.tokenIds.get(form)
        if (id !== undefined && fuzzy.tokenAbjad[id] === 1) addCandidate(scratch, mark, id, 0)
      }
    }
  }
  for (const key of phoneticKeys(part.text))
    addCandidates(scratch, mark, fuzzy.byPhonetic.get(key), VIA_PHONETIC)
  const length = part.text.length
  if (length >= 4) {
    for (const list of [fuzzy.byPrefix.get(part.text.slice(0, 3)), fuzzy.bySuffix.get(part.text.slice(-3))]) {
      if (!list) continue
      for (const id of list) {
        if (Math.abs(scratch.tokenLength[id]! - length) <= 2) addCandidate(scratch, mark, id, 0)
      }
    }
  }
  if (!part.abjad) {
    for (const skeleton of part.skeletons) addCandidates(scratch, mark, fuzzy.bySkeleton.get(skeleton), 0)
    for (const id of tokensWithinOneEdit(fuzzy, part.text)) addCandidate(scratch, mark, id, 0)
  }
  return mark
}

function listedPart(fuzzy: FuzzyIndex, id: number): ComparablePart {
  const skeletons = fuzzy.tokenSkeleton.get(id)
  return { text: fuzzy.tokens[id]!, abjad: skeletons !== undefined, skeletons: skeletons ?? [] }
}

/**
 * What a fuzzy index's word memos hold at most, in answers plus the listed tokens or splits
 * they name: a word pairs with 5 listed tokens at the median and under 70 at most on the
 * evaluation set; most words and word pairs are never written joined (an empty answer, one
 * unit); a long Latin word reads as two or three Arabic-script words in up to hundreds of ways
 * (90 at the 90th percentile, 600 at the 99th; 12 bytes each, in a typed array). Full, they
 * take a few MB of heap (bench:matching-speed, word_memos).
 */
const COMPARISON_MEMO_UNITS = 16_384
const JOINED_MEMO_UNITS = 4_096
const SPLIT_MEMO_UNITS = 65_536

/**
 * What a fuzzy index remembers of the query words it has compared, dropped with it when the
 * lists are rebuilt: per word, the listed tokens it pairs with (candidateTokens, then
 * compareNameParts), which depend on the word and the index alone. Names share words (given
 * names, "trading", "group"), so most of a screen's comparisons were made by an earlier one.
 */
interface WordMemos {
  comparisons: BoundedMemo<ReadonlyMap<number, PairResult>>
  /** Per pair of adjacent words (three with an article in the middle): joinedAt. */
  joined: BoundedMemo<readonly JoinedMatch[]>
  /** Per word: splitsOf. */
  splits: BoundedMemo<Int32Array>
}

const wordMemos = new WeakMap<FuzzyIndex, WordMemos>()

function memosOf(fuzzy: FuzzyIndex): WordMemos {
  let memos = wordMemos.get(fuzzy)
  if (!memos) {
    memos = {
      comparisons: createBoundedMemo(COMPARISON_MEMO_UNITS, (matches) => 1 + matches.size),
      joined: createBoundedMemo(JOINED_MEMO_UNITS, (matches) => 1 + matches.length),
      splits: createBoundedMemo(SPLIT_MEMO_UNITS, (ids) => 1 + ids.length / 3),
    }
    wordMemos.set(fuzzy, memos)
  }
  return memos
}

/**
 * Forgets what the index's fuzzy screen remembers of earlier query words, so the next screen
 * compares every word afresh (benchmarks time that cold case; tests check both agree).
 */
export function forgetFuzzyWordMemos(index: SanctionsIndex): void {
  const fuzzy = fuzzyIndexes.get(index)
  if (fuzzy) wordMemos.delete(fuzzy)
  forgetNameAnalysisAnswers()
}

/** How much the index's word memos hold now: answers and cost units, over all three (benchmarks). */
export function fuzzyWordMemoHolding(index: SanctionsIndex): { answers: number; units: number } {
  const fuzzy = fuzzyIndexes.get(index)
  const memos = fuzzy ? wordMemos.get(fuzzy) : undefined
  if (!memos) return { answers: 0, units: 0 }
  const all = [memos.comparisons, memos.joined, memos.splits]
  return {
    answers: all.reduce((sum, memo) => sum + memo.size, 0),
    units: all.reduce((sum, memo) => sum + memo.cost, 0),
  }
}

/**
 * The listed tokens a name word pairs with, and how (only those at PART_FLOOR or more), in the
 * order the candidates were found (the order candidateNames reads them in).
 */
function compareWithVocabulary(fuzzy: FuzzyIndex, part: QueryPart): ReadonlyMap<number, PairResult> {
  const matches = new Map<number, PairResult>()
  const scratch = candidateScratchOf(fuzzy)
  candidateTokens(fuzzy, part, scratch)
  const variants = nameVariants(part.text)
  const bound = wordSimilarityBoundFrom(part.text)
  // The vocabulary ids of the word itself and of its variants (tokens are unique texts), so
  // most candidates are refused on their length alone, without reading their text.
  const self = fuzzy.tokenIds.get(part.text)
  const variantIds = new Set<number>()
  for (const variant of variants) {
    const id = fuzzy.tokenIds.get(variant)
    if (id !== undefined) variantIds.add(id)
  }
  const length = part.text.length
  for (const id of scratch.order) {
    const samePhoneticKey = (scratch.flags[id]! & VIA_PHONETIC) !== 0
    let result: PairResult | null
    // compareNameParts, its variants read once: a listed token is abjad exactly when the
    // index holds its skeletons (tokenAbjad).
    if (fuzzy.tokenAbjad[id] === 0 && !part.abjad) {
      // compareLatinWords pairs two different words only as variants or through wordSimilarity,
      // which it computes only for these lengths (and isShortWordTruncation's 3 and 4).
      const listedLength = scratch.tokenLength[id]!
      if (id !== self && !variantIds.has(id)) {
        if (
          !(Math.min(length, listedLength) >= 4 && Math.abs(length - listedLength) <= 3) &&
          !(length + listedLength === 7 && Math.min(length, listedLength) === 3)
        ) {
          continue
        }
        // Nor when the lengths alone rule it out: the similarity it would compute is at most
        // lengthBound, and pairs only from PART_FLOOR (PHONETIC_MIN_SIMILARITY for a phonetic pair).
        if (
          lengthBound(length, listedLength) <
          (samePhoneticKey ? PHONETIC_MIN_SIMILARITY : PART_FLOOR) - 1e-6
        )
          continue
      }
      result = compareLatinWords(part.text, variants, bound, fuzzy.tokens[id]!, samePhoneticKey)
    } else result = compareNameParts(part, listedPart(fuzzy, id), samePhoneticKey)
    if (result) matches.set(id, result)
  }
  return matches.size > 0 ? matches : NO_MATCHES
}

/**
 * What compareWithVocabulary reads of a part: its text, and for an Arabic- or Hebrew-script
 * part its skeletons too (two words of that script may fold to the same Latin letters and read
 * differently); a Latin part's skeletons follow from its text.
 */
function comparisonKey(part: QueryPart): string {
  // A Latin part's text alone (it has no space, so no abjad key is one): the very string the
  // analysis made, whose hash the engine already keeps from the vocabulary lookup.
  return part.abjad ? `a ${part.text} ${part.skeletons.join(' ')}` : part.text
}

/** The empty answers, one each, so that the many words with none hold no array of their own. */
const NO_MATCHES: ReadonlyMap<number, PairResult> = new Map()
const NO_JOINED: readonly JoinedMatch[] = Object.freeze([])
const NO_SPLITS = new Int32Array(0)
const NO_SPLIT_GROUPS: ReadonlyMap<number, readonly SplitMatch[]> = new Map()

function analyseQuery(fuzzy: FuzzyIndex, name: string, kind: 'person' | 'organization' | 'any'): QueryPart[] {
  const memo = memosOf(fuzzy).comparisons
  return analyseName(name, kind)
    .parts.slice(0, MAX_PARTS)
    .map((part): QueryPart => {
      const id = part.role === 'name' ? fuzzy.tokenIds.get(part.text) : undefined
      const weight = ROLE_WEIGHT[part.role] * (id === undefined ? 1 : fuzzy.tokenWeight[id]!)
      const abjad = isAbjad(part.script)
      const skeletons = abjad ? part.skeletons : consonantSkeletons(part.text)
      const patronymic = part.role === 'name' && SLAVIC_PATRONYMIC.test(part.text)
      const analysed: QueryPart = { ...part, abjad, skeletons, weight, patronymic, matches: NO_MATCHES }
      if (part.role === 'name') {
        analysed.matches = memo.get(comparisonKey(analysed), () => compareWithVocabulary(fuzzy, analysed))
      }
      return analysed
    })
}

/** Two adjacent query parts written as one listed part ("al qaida" / "alqaida"). */
interface JoinedMatch {
  queryIndex: number
  /** The last query part joined: queryIndex + 1, or + 2 for "Abd al Majid" / عبدالمجيد. */
  lastIndex: number
  tokenId: number
  sim: number
}

/**
 * One query part written as two or three adjacent listed parts ("abubakr" / "abu bakr",
 * "Abedininajafabadi" / عابدینی نجف آبادی): leftId, rightId and, for three, thirdId (else -1).
 */
interface SplitMatch {
  queryIndex: number
  leftId: number
  rightId: number
  thirdId: number
}

/** Abjad tokens with any of these skeletons (those of `minLength` consonants or more). */
function tokensBySkeletons(fuzzy: FuzzyIndex, skeletons: readonly string[], minLength = 1): Set<number> {
  const found = new Set<number>()
  for (const skeleton of skeletons) {
    if (skeleton.length < minLength) continue
    for (const id of fuzzy.bySkeleton.get(skeleton) ?? []) found.add(id)
  }
  return found
}

/**
 * Arabic-script words one half of a split Latin word may be: by a skeleton of two consonants or
 * more, or, for a first half of three letters, of one when it spells the whole Arabic word in
 * order ("Ali" + "akbar" / علی اکبر); a bare one-consonant skeleton says too little ("Zanella"
 * is not عدنان علي).
 */
function splitHalfTokens(fuzzy: FuzzyIndex, half: string, first: boolean): Set<number> {
  const skeletons = consonantSkeletons(half)
  const found = tokensBySkeletons(fuzzy, skeletons, 2)
  if (!first) return found
  for (const skeleton of skeletons) {
    if (skeleton.length !== 1) continue
    for (const id of fuzzy.bySkeleton.get(skeleton) ?? []) {
      if (half.length <= 3 && shortWordsAgree(half, fuzzy.tokens[id]!)) found.add(id)
    }
  }
  return found
}

/** Latin letters a word needs before it is tried as three Arabic-script words (three and more each). */
const THREE_WAY_MIN_LENGTH = 12

/**
 * One long Latin word against three Arabic-script words: the Persian family names of three
 * words ("Abedininajafabadi" / عابدینی نجف آبادی, "Fatahinojokambari" / فتاحی نوجو کامبری),
 * which Latin spellings write as one. Each third keeps two consonants or more (the first as
 * splitHalfTokens allows), and the three must stand in that order in one listed name.
 */
function threeWaySplits(fuzzy: FuzzyIndex, text: string, queryIndex: number, split: SplitMatch[]): void {
  if (text.length < THREE_WAY_MIN_LENGTH) return
  for (let cut = 3; cut + 6 <= text.length; cut++) {
    const left = splitHalfTokens(fuzzy, text.slice(0, cut), true)
    if (left.size === 0) continue
    for (let second = cut + 3; second + 3 <= text.length; second++) {
      const middle = tokensBySkeletons(fuzzy, consonantSkeletons(text.slice(cut, second)), 2)
      if (middle.size === 0 || left.size * middle.size > SPLIT_READINGS_CAP) continue
      const right = splitHalfTokens(fuzzy, text.slice(second), false)
      if (right.size === 0 || left.size * middle.size * right.size > SPLIT_READINGS_CAP) continue
      for (const leftId of left)
        for (const rightId of middle)
          for (const thirdId of right) split.push({ queryIndex, leftId, rightId, thirdId })
    }
  }
}

/**
 * The listed words query parts i, i + 1 (and i + 2) may be written as: two Latin words against
 * one Arabic-script word, three with the article in the middle, two words joined. Reads those
 * parts alone (queryIndex 0 here; the caller places them).
 */
function joinedAt(
  fuzzy: FuzzyIndex,
  a: QueryPart,
  b: QueryPart,
  c: QueryPart | undefined,
): readonly JoinedMatch[] {
  const joined: JoinedMatch[] = []
  if (!a.abjad && !b.abjad && a.role === 'name' && b.role === 'name') {
    // Two Latin words against one Arabic word ("Abdul Latif" / عبداللطيف).
    const skeletons = consonantSkeletons(a.text + b.text)
    const found = new Set<number>()
    for (const skeleton of skeletons) for (const id of fuzzy.bySkeleton.get(skeleton) ?? []) found.add(id)
    for (const id of found) {
      const sim = skeletonSimilarity(skeletons, fuzzy.tokenSkeleton.get(id) ?? [], a.text + b.text)
      if (sim >= PART_FLOOR) joined.push({ queryIndex: 0, lastIndex: 1, tokenId: id, sim })
    }
  }
  if (c && !a.abjad && !c.abjad && a.role === 'name' && b.role === 'article' && c.role === 'name') {
    // Three Latin words with the article in the middle against one Arabic word: the compound
    // names "Abd al Majid" / عبدالمجيد, "Nasir al Din" / ناصرالدين, "Abd el Halim" / عبدالحليم.
    const text = a.text + b.text + c.text
    const skeletons = consonantSkeletons(text)
    for (const id of tokensBySkeletons(fuzzy, skeletons)) {
      const sim = skeletonSimilarity(skeletons, fuzzy.tokenSkeleton.get(id) ?? [], text)
      if (sim >= PART_FLOOR) joined.push({ queryIndex: 0, lastIndex: 2, tokenId: id, sim })
    }
  }
  const text = a.text + b.text
  const exact = fuzzy.tokenIds.get(text)
  if (exact !== undefined) joined.push({ queryIndex: 0, lastIndex: 1, tokenId: exact, sim: SPLIT_SIMILARITY })
  else if (text.length >= 6) {
    const tokenLength = candidateScratchOf(fuzzy).tokenLength
    for (const id of fuzzy.byPrefix.get(text.slice(0, 3)) ?? []) {
      if (Math.abs(tokenLength[id]! - text.length) > 1) continue
      const token = fuzzy.tokens[id]!
      // The bound first: exact, it is never under the similarity (name-similarity.ts).
      if (wordSimilarityBound(text, token) < 0.9 - 1e-9) continue
      const sim = wordSimilarity(text, token)
      if (sim >= 0.9) joined.push({ queryIndex: 0, lastIndex: 1, tokenId: id, sim: sim * SPLIT_SIMILARITY })
    }
  }
  return joined.length > 0 ? joined : NO_JOINED
}

/**
 * The listed words a name part of five letters or more may be split into: two or three
 * Arabic-script words for a long Latin word, two listed words for any; as triples of token ids
 * (left, right, third or -1), in the order they were found.
 */
function splitsOf(fuzzy: FuzzyIndex, part: QueryPart): Int32Array {
  const split: SplitMatch[] = []
  if (!part.abjad && part.text.length >= 7) {
    // One Latin word against two Arabic ones ("Moradipour" / مرادی پور).
    for (let cut = 3; cut <= part.text.length - 3; cut++) {
      const left = splitHalfTokens(fuzzy, part.text.slice(0, cut), true)
      if (left.size === 0) continue
      const right = splitHalfTokens(fuzzy, part.text.slice(cut), false)
      if (right.size === 0 || left.size * right.size > SPLIT_READINGS_CAP) continue
      for (const leftId of left)
        for (const rightId of right) split.push({ queryIndex: 0, leftId, rightId, thirdId: -1 })
    }
    threeWaySplits(fuzzy, part.text, 0, split)
  }
  for (let cut = 2; cut <= part.text.length - 2; cut++) {
    const leftId = fuzzy.tokenIds.get(part.text.slice(0, cut))
    if (leftId === undefined) continue
    const rightId = fuzzy.tokenIds.get(part.text.slice(cut))
    if (rightId !== undefined) split.push({ queryIndex: 0, leftId, rightId, thirdId: -1 })
  }
  if (split.length === 0) return NO_SPLITS
  // Three ids a split, in a typed array: long words have hundreds of readings, and the memo keeps them.
  const ids = new Int32Array(split.length * 3)
  split.forEach((match, i) => {
    ids[3 * i] = match.leftId
    ids[3 * i + 1] = match.rightId
    ids[3 * i + 2] = match.thirdId
  })
  return ids
}

/** What joinedAt reads of a part (its role, script kind and text). */
function joinKey(part: QueryPart | undefined): string {
  return part ? `${part.role} ${part.abjad ? 'a' : 'l'} ${part.text}` : ''
}

/**
 * Joined and split words of the whole query (joinedAt and splitsOf at each place), from the
 * index's word memos when the same words were screened before.
 */
function joinedAndSplit(fuzzy: FuzzyIndex, parts: readonly QueryPart[]) {
  const memos = memosOf(fuzzy)
  const joined: JoinedMatch[] = []
  const split: SplitMatch[] = []
  for (let i = 0; i + 1 < parts.length; i++) {
    const a = parts[i]!
    const b = parts[i + 1]!
    if (IGNORED_ROLES.has(a.role) || IGNORED_ROLES.has(b.role) || a.role === 'particle') continue
    const c = parts[i + 2]
    // c matters only as the third word of "Abd al Majid" (b an article).
    const key = `${joinKey(a)}|${joinKey(b)}|${b.role === 'article' ? joinKey(c) : ''}`
    for (const match of memos.joined.get(key, () => joinedAt(fuzzy, a, b, c))) {
      joined.push({ queryIndex: i, lastIndex: i + match.lastIndex, tokenId: match.tokenId, sim: match.sim })
    }
  }
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (part.role !== 'name' || part.text.length < 5) continue
    const ids = memos.splits.get(comparisonKey(part), () => splitsOf(fuzzy, part))
    for (let at = 0; at < ids.length; at += 3) {
      split.push({ queryIndex: i, leftId: ids[at]!, rightId: ids[at + 1]!, thirdId: ids[at + 2]! })
    }
  }
  return { joined, split }
}

/**
 * An aligned pair: one query part, or the query parts q0..q1 (two, or three with an article in
 * the middle; q1 = -1 for one), with one or two listed parts.
 */
interface Pair {
  q0: number
  q1: number
  l0: number
  l1: number
  sim: number
  method: PartMethod
  /** 1 for a one-word pair whose words a two- or three-word pair of the same name also wants. */
  contested: number
}

interface NameScore {
  score: number
  pairs: Pair[]
  unmatchedQuery: number[]
  unmatchedListed: number[]
  ignoredListed: number[]
}

const NAME_ROLE = ROLE_CODES.indexOf('name')
const IGNORED_ROLE_CODES = new Uint8Array(ROLE_CODES.map((role) => (IGNORED_ROLES.has(role) ? 1 : 0)))
const ROLE_WEIGHT_CODES = new Float64Array(ROLE_CODES.map((role) => ROLE_WEIGHT[role]))

function byPairOrder(a: Pair, b: Pair): number {
  const widthA = (a.q1 >= 0 ? a.q1 - a.q0 + 1 : 1) + (a.l1 >= 0 ? a.l1 - a.l0 + 1 : 1)
  const widthB = (b.q1 >= 0 ? b.q1 - b.q0 + 1 : 1) + (b.l1 >= 0 ? b.l1 - b.l0 + 1 : 1)
  return b.sim - a.sim || widthA - widthB || a.contested - b.contested || a.l0 - b.l0
}

/**
 * Marks the one-word pairs that take a word a wider pair (joined or split) also needs, so that on
 * a tie a one-word pair that leaves the wider one free goes first: in "Hamdullah Allah Noor" /
 * حمد الله الله نور, "Allah" pairs with the second الله and "Hamdullah" with حمد الله.
 */
function markContested(pairs: Pair[], start: number): void {
  let wantedQuery = 0
  let wantedListed = 0
  for (const pair of pairs) {
    if (pair.q1 < 0 && pair.l1 < 0) continue
    for (let q = pair.q0; q <= Math.max(pair.q0, pair.q1); q++) wantedQuery |= 1 << q
    for (let p = pair.l0; p <= Math.max(pair.l0, pair.l1); p++) wantedListed |= 1 << (p - start)
  }
  if (wantedQuery === 0) return
  for (const pair of pairs) {
    if (pair.q1 >= 0 || pair.l1 >= 0) continue
    if ((wantedQuery & (1 << pair.q0)) !== 0 || (wantedListed & (1 << (pair.l0 - start))) !== 0)
      pair.contested = 1
  }
}

const ARABIC_SCRIPT = SCRIPT_CODES.indexOf('arabic')

/**
 * What the listed words the query leaves out cost when the listed name is written in Arabic
 * script and the query is its given name and some of the names after it, in the same order:
 * such a name carries the nasab (father's and grandfather's names: "ساره جمال محمد السيد" is
 * Sarah, daughter of Gamal, son of Mohammed, of the Sayed family), which a Latin spelling of the
 * same person usually leaves out ("Sarah Gamal"). The query's first word must pair with the
 * listed given name (another given name is another person), and the pairs must keep their order
 * (a father's name before the son's is a father / son swap).
 */
function nasabFactor(fuzzy: FuzzyIndex, chosen: readonly Pair[], start: number, end: number): number {
  let firstListedName = -1
  for (let p = start; firstListedName < 0 && p < end; p++) {
    if (fuzzy.partRole[p] === NAME_ROLE) firstListedName = p
  }
  const ordered = [...chosen].sort((a, b) => a.q0 - b.q0)
  const first = ordered.find((pair) => fuzzy.partRole[pair.l0] === NAME_ROLE)
  if (first === undefined || first.l0 !== firstListedName) return UNMATCHED_LISTED_FACTOR
  return closeAndInOrder(fuzzy, ordered) ? NASAB_FACTOR : UNMATCHED_LISTED_FACTOR
}

/**
 * True when every aligned name word agrees closely (0.9 or more: one or two consonants alone,
 * "Za" / عوض, say too little) and the pairs keep the order of both names.
 */
function closeAndInOrder(fuzzy: FuzzyIndex, chosen: readonly Pair[], floor = CLOSE_PAIR_SIMILARITY): boolean {
  const ordered = [...chosen].sort((a, b) => a.q0 - b.q0)
  for (let i = 0; i < ordered.length; i++) {
    const pair = ordered[i]!
    if (fuzzy.partRole[pair.l0] === NAME_ROLE && pair.sim < floor) return false
    if (i > 0 && pair.l0 <= Math.max(ordered[i - 1]!.l0, ordered[i - 1]!.l1)) return false
  }
  return true
}

function listedWeight(fuzzy: FuzzyIndex, p: number): number {
  return ROLE_WEIGHT_CODES[fuzzy.partRole[p]!]! * fuzzy.tokenWeight[fuzzy.partToken[p]!]!
}

/**
 * Aligns the query with one listed name and scores it (steps 2 and 3 of the file comment).
 * Returns null when too few name words agree to call it a match at any threshold. Written
 * without closures or per-part arrays: it runs for every candidate name of every query.
 */
function scoreName(
  fuzzy: FuzzyIndex,
  query: readonly QueryPart[],
  name: number,
  joined: readonly JoinedMatch[],
  splitsByLeft: ReadonlyMap<number, readonly SplitMatch[]>,
  person: boolean,
): NameScore | null {
  const start = fuzzy.partStart[name]!
  const end = fuzzy.partStart[name + 1]!
  let queryHasParticle = false
  for (const part of query) if (part.role === 'particle') queryHasParticle = true
  let listedHasParticle = false
  for (let p = start; p < end; p++) if (fuzzy.partRole[p] === PARTICLE) listedHasParticle = true
  const checkSegments = queryHasParticle && listedHasParticle

  const pairs: Pair[] = []
  for (let q = 0; q < query.length; q++) {
    const part = query[q]!
    if (IGNORED_ROLES.has(part.role)) continue
    for (let p = start; p < end && p - start < MAX_PARTS; p++) {
      const roleCode = fuzzy.partRole[p]!
      // A listed title pairs with a query word that spells it with a typo ("Ssyed" / "Sayed"),
      // which the query's analysis could not take for the title.
      if (IGNORED_ROLE_CODES[roleCode] === 1 && !(roleCode === HONORIFIC && part.role === 'name')) continue
      const token = fuzzy.partToken[p]!
      let sim = 0
      let method: PartMethod = 'exact'
      if (part.role === 'name') {
        if (roleCode === NAME_ROLE || roleCode === HONORIFIC) {
          const result = part.matches.get(token)
          if (result) {
            sim = result.sim
            method = result.method
          }
        }
      } else if (part.role === 'particle') {
        if (roleCode === PARTICLE) {
          sim = 1
          method = 'particle'
        }
      } else if (ROLE_CODES[roleCode] === part.role && part.text === fuzzy.tokens[token]) sim = 1
      if (sim === 0) continue
      if (checkSegments && part.segment !== fuzzy.partSegment[p]) sim *= CROSS_SEGMENT_FACTOR
      pairs.push({ q0: q, q1: -1, l0: p, l1: -1, sim, method, contested: 0 })
    }
  }
  for (const match of joined) {
    for (let p = start; p < end && p - start < MAX_PARTS; p++) {
      if (fuzzy.partToken[p] !== match.tokenId || fuzzy.partRole[p] !== NAME_ROLE) continue
      const factor =
        checkSegments && query[match.queryIndex]!.segment !== fuzzy.partSegment[p] ? CROSS_SEGMENT_FACTOR : 1
      pairs.push({
        q0: match.queryIndex,
        q1: match.lastIndex,
        l0: p,
        l1: -1,
        sim: match.sim * factor,
        method: 'joined',
        contested: 0,
      })
    }
  }
  // By listed part, each part's splits in their order: the pairs come out in another order
  // than split by split, but two pairs of different listed parts never tie in byPairOrder (l0
  // decides), and those of one part keep their order, so the sorted pairs are the same.
  for (let p = start; p < end; p++) {
    const group = splitsByLeft.get(fuzzy.partToken[p]!)
    if (group === undefined) continue
    for (const match of group) {
      const last = match.thirdId >= 0 ? 2 : 1
      if (p + last >= end || p + last - start >= MAX_PARTS) continue
      if (fuzzy.partToken[p + 1] !== match.rightId) continue
      if (last === 2 && fuzzy.partToken[p + 2] !== match.thirdId) continue
      const factor =
        checkSegments && query[match.queryIndex]!.segment !== fuzzy.partSegment[p] ? CROSS_SEGMENT_FACTOR : 1
      pairs.push({
        q0: match.queryIndex,
        q1: -1,
        l0: p,
        l1: p + last,
        sim: SPLIT_SIMILARITY * factor,
        method: 'split',
        contested: 0,
      })
    }
  }
  markContested(pairs, start)
  pairs.sort(byPairOrder)

  // Greedy one-to-one assignment, best pair first; bit masks of used parts (names are short).
  let usedQuery = 0
  let usedListed = 0
  const chosen: Pair[] = []
  let aligned = 0
  let weighted = 0
  let alignedNames = 0
  for (const pair of pairs) {
    if (pair.sim < PART_FLOOR) break
    let queryBits = 1 << pair.q0
    for (let q = pair.q0 + 1; q <= pair.q1; q++) queryBits |= 1 << q
    let listedBits = 1 << (pair.l0 - start)
    for (let p = pair.l0 + 1; p <= pair.l1; p++) listedBits |= 1 << (p - start)
    if ((usedQuery & queryBits) !== 0 || (usedListed & listedBits) !== 0) continue
    usedQuery |= queryBits
    usedListed |= listedBits
    chosen.push(pair)
    let queryWeight = query[pair.q0]!.weight
    for (let q = pair.q0 + 1; q <= pair.q1; q++) queryWeight += query[q]!.weight
    let listed = listedWeight(fuzzy, pair.l0)
    for (let p = pair.l0 + 1; p <= pair.l1; p++) listed += listedWeight(fuzzy, p)
    const weight = Math.max(queryWeight, listed)
    aligned += weight
    weighted += weight * pair.sim
    let namePair = false
    for (let p = pair.l0; p <= Math.max(pair.l0, pair.l1); p++)
      if (fuzzy.partRole[p] === NAME_ROLE) namePair = true
    if (namePair) alignedNames++
  }

  const unmatchedQuery: number[] = []
  let queryRest = 0
  let queryDetail = 0
  let queryBetween = 0
  let queryNames = 0
  let queryNamesLeft = 0
  let firstQuery = query.length
  let lastQuery = -1
  for (const pair of chosen) {
    firstQuery = Math.min(firstQuery, pair.q0)
    lastQuery = Math.max(lastQuery, pair.q0, pair.q1)
  }
  for (let q = 0; q < query.length; q++) {
    const part = query[q]!
    if (IGNORED_ROLES.has(part.role)) continue
    if (part.role === 'name') queryNames++
    if ((usedQuery & (1 << q)) !== 0) continue
    unmatchedQuery.push(q)
    if (part.role === 'name') queryNamesLeft++
    if (part.patronymic) queryRest += part.weight
    else if (q > firstQuery && q < lastQuery) queryBetween += part.weight
    else queryDetail += part.weight
  }
  const unmatchedListed: number[] = []
  const ignoredListed: number[] = []
  let listedRest = 0
  for (let p = start; p < end; p++) {
    if (IGNORED_ROLE_CODES[fuzzy.partRole[p]!] === 1) {
      if (p - start >= MAX_PARTS || (usedListed & (1 << (p - start))) === 0) ignoredListed.push(p)
      continue
    }
    if (p - start < MAX_PARTS && (usedListed & (1 << (p - start))) !== 0) continue
    unmatchedListed.push(p)
    listedRest += listedWeight(fuzzy, p)
  }
  if (alignedNames === 0 || alignedNames < Math.min(2, queryNames, fuzzy.nameWords[name]!)) return null
  // The query says more than the listed name (a father's or family name the list leaves out:
  // "Majid Dastjani Farahani" / فراهانی, مجید): when every listed name word is matched, and two
  // or more of them, the query's extra words cost less than words the listed name lacks.
  // Persons only: an organisation with another word is another organisation ("Angstrem-T" /
  // "Fondovyi Angstrem-T"). A patronymic the query adds costs in full: it is what tells a father
  // from his son of the same given name and surname ("Sergey Aleksandrovich Ushko" / "Ushko, Sergey").
  // The query's first name word (its given name) must be matched: another given name in front
  // of a listed name is another person of that family ("Yurii Abdul Rahman" / "Abdul Rahman").
  // Of an Arabic-script person's name, the words between its matched ones are its nasab
  // (nasabFactor): left out, they do not make the listed name less than wholly matched.
  let firstMatched = end
  let lastMatched = -1
  if (person && fuzzy.nameScript[name] === ARABIC_SCRIPT) {
    for (const pair of chosen) {
      firstMatched = Math.min(firstMatched, pair.l0)
      lastMatched = Math.max(lastMatched, pair.l0, pair.l1)
    }
  }
  let listedNamesLeft = 0
  for (const p of unmatchedListed) {
    if (fuzzy.partRole[p] === NAME_ROLE && (p < firstMatched || p > lastMatched)) listedNamesLeft++
  }
  let firstName = -1
  for (let q = 0; q < query.length && firstName < 0; q++) if (query[q]!.role === 'name') firstName = q
  const givenNameMatched = firstName >= 0 && (usedQuery & (1 << firstName)) !== 0
  const queryFactor =
    person && givenNameMatched && listedNamesLeft === 0 && alignedNames >= 2
      ? closeAndInOrder(fuzzy, chosen)
        ? CLOSE_QUERY_DETAIL_FACTOR
        : QUERY_DETAIL_FACTOR
      : 1
  const listedFactor =
    person && queryNamesLeft === 0 && fuzzy.nameScript[name] === ARABIC_SCRIPT && alignedNames >= 2
      ? nasabFactor(fuzzy, chosen, start, end)
      : UNMATCHED_LISTED_FACTOR
  // The query's own nasab: words between its matched ones, when the listed name is an
  // Arabic-script person's that the query's given name opens and whose words it all matches
  // in order ("Amre Mohamad Hamcho" / حمشو, عمرو: Mohamad is Amre's father). They say more about
  // the same person, so they cost what the listed nasab left out costs (nasabFactor).
  const betweenFactor =
    queryFactor < 1 &&
    fuzzy.nameScript[name] === ARABIC_SCRIPT &&
    closeAndInOrder(fuzzy, chosen, QUERY_NASAB_PAIR)
      ? NASAB_FACTOR
      : queryFactor
  const denominator =
    aligned + queryRest + queryFactor * queryDetail + betweenFactor * queryBetween + listedFactor * listedRest
  if (denominator <= 0) return null
  let score = weighted / denominator
  // One distinctive word on each side ("Russel Inc" / "Russul OOO"): one letter is the name.
  if (queryNames === 1 && fuzzy.nameWords[name] === 1 && chosen.length > 0) {
    let bestName = 0
    for (const pair of chosen)
      if (fuzzy.partRole[pair.l0] === NAME_ROLE && pair.sim > bestName) bestName = pair.sim
    if (bestName < ONE_WORD_SIMILARITY) score *= ONE_WORD_FACTOR
  }
  return { score, pairs: chosen, unmatchedQuery, unmatchedListed, ignoredListed }
}

/**
 * What scoreBound reads, per screen, kept with the index: for each listed token a query word
 * pairs with, a row of its similarity to each query word (0: none), and which tokens a joined
 * or split word begins with (twoForOne). Stamps instead of clearing, rows instead of a Map
 * lookup per query word per listed part (scoreBound runs for thousands of names a screen).
 */
interface BoundTable {
  stamp: Uint32Array
  row: Uint32Array
  twoForOne: Uint32Array
  clock: number
  sims: Float64Array
  width: number
}

const boundTables = new WeakMap<FuzzyIndex, BoundTable>()

/** Fills the index's bound table for this query (and its twoForOne tokens); returns it. */
function boundTableFor(
  fuzzy: FuzzyIndex,
  query: readonly QueryPart[],
  twoForOne: Iterable<number>,
): BoundTable {
  let table = boundTables.get(fuzzy)
  if (!table) {
    const count = fuzzy.tokens.length
    table = {
      stamp: new Uint32Array(count),
      row: new Uint32Array(count),
      twoForOne: new Uint32Array(count),
      clock: 0,
      sims: new Float64Array(1024),
      width: 0,
    }
    boundTables.set(fuzzy, table)
  }
  if (table.clock >= 0xfffffff0) {
    table.stamp.fill(0)
    table.twoForOne.fill(0)
    table.clock = 0
  }
  const mark = ++table.clock
  const width = query.length
  table.width = width
  let rows = 0
  for (let q = 0; q < width; q++) {
    const part = query[q]!
    if (part.role !== 'name') continue
    for (const [token, result] of part.matches) {
      if (table.stamp[token] !== mark) {
        table.stamp[token] = mark
        table.row[token] = rows
        if ((rows + 1) * width > table.sims.length) {
          const grown = new Float64Array(Math.max(table.sims.length * 2, (rows + 1) * width))
          grown.set(table.sims)
          table.sims = grown
        }
        table.sims.fill(0, rows * width, (rows + 1) * width)
        rows++
      }
      table.sims[table.row[token]! * width + q] = result.sim
    }
  }
  for (const token of twoForOne) table.twoForOne[token] = mark
  return table
}

/** True when name `name` holds a token a joined or split query word begins with (boundTableFor). */
function hasTwoForOne(fuzzy: FuzzyIndex, table: BoundTable, name: number): boolean {
  for (let p = fuzzy.partStart[name]!; p < fuzzy.partStart[name + 1]!; p++) {
    if (table.twoForOne[fuzzy.partToken[p]!] === table.clock) return true
  }
  return false
}

/**
 * An upper bound of scoreName's score, computed without allocating: each query part at its
 * best similarity in the name, listed parts that nothing in the query resembles counted as
 * unmatched. Names whose bound is under the floor are not aligned at all. Reads the query's
 * pairs from the bound table (boundTableFor).
 */
function scoreBound(
  fuzzy: FuzzyIndex,
  query: readonly QueryPart[],
  name: number,
  best: Float64Array,
  table: BoundTable,
): number {
  // Only persons' names get QUERY_DETAIL_FACTOR; a bound may assume it for every name.
  const start = fuzzy.partStart[name]!
  const end = fuzzy.partStart[name + 1]!
  const width = query.length
  best.fill(0, 0, width)
  let listedRest = 0
  for (let p = start; p < end; p++) {
    const roleCode = fuzzy.partRole[p]!
    if (roleCode !== NAME_ROLE && roleCode !== HONORIFIC) continue
    const token = fuzzy.partToken[p]!
    let matched = false
    if (table.stamp[token] === table.clock) {
      const row = table.row[token]! * width
      for (let q = 0; q < width; q++) {
        const sim = table.sims[row + q]!
        if (sim > 0) {
          matched = true
          if (sim > best[q]!) best[q] = sim
        }
      }
    }
    if (!matched && roleCode === NAME_ROLE) listedRest += fuzzy.tokenWeight[token]!
  }
  let weighted = 0
  let total = 0
  // Unmatched query words may cost CLOSE_QUERY_DETAIL_FACTOR at least only when every listed
  // word is matched, or the name is in Arabic script (whose nasab may be left out).
  const arabic = fuzzy.nameScript[name] === ARABIC_SCRIPT
  const unmatchedCost = arabic ? NASAB_FACTOR : listedRest === 0 ? CLOSE_QUERY_DETAIL_FACTOR : 1
  for (let q = 0; q < width; q++) {
    const part = query[q]!
    if (part.role !== 'name') continue
    const weight = part.weight
    weighted += weight * best[q]!
    total += best[q]! > 0 || part.patronymic ? weight : unmatchedCost * weight
  }
  // Words of an Arabic-script name's nasab may cost NASAB_FACTOR only (nasabFactor).
  const listedCost = arabic ? NASAB_FACTOR : UNMATCHED_LISTED_FACTOR
  return total === 0 ? 1 : weighted / (total + listedCost * listedRest)
}

/** How many names hold token `t`. */
function postingCount(fuzzy: FuzzyIndex, t: number): number {
  return fuzzy.postingStart[t + 1]! - fuzzy.postingStart[t]!
}

interface Scratch {
  stamp: Uint32Array
  counts: Uint8Array
  clock: number
}

const scratches = new WeakMap<FuzzyIndex, Scratch>()

/**
 * Candidate names (step 1): every name that shares a matched part with at least as many query
 * parts as an alignment needs (two, or one when either name has a single name word). Counted
 * over the postings in two typed arrays kept with the index, so a query allocates no per-name
 * objects; only the names that pass are scored.
 */
function candidateNames(
  fuzzy: FuzzyIndex,
  query: readonly QueryPart[],
  joined: readonly JoinedMatch[],
  split: readonly SplitMatch[],
): number[] {
  let scratch = scratches.get(fuzzy)
  if (!scratch) {
    scratch = { stamp: new Uint32Array(fuzzy.nameCount), counts: new Uint8Array(fuzzy.nameCount), clock: 0 }
    scratches.set(fuzzy, scratch)
  }
  const { stamp, counts } = scratch
  const touched: number[] = []
  let groups = 0
  for (let q = 0; q < query.length; q++) {
    const part = query[q]!
    if (part.role !== 'name') continue
    const tokens = new Set<number>(part.matches.keys())
    for (const match of joined) if (match.queryIndex <= q && q <= match.lastIndex) tokens.add(match.tokenId)
    for (const match of split) {
      if (match.queryIndex !== q) continue
      let rarest =
        postingCount(fuzzy, match.leftId) <= postingCount(fuzzy, match.rightId) ? match.leftId : match.rightId
      if (match.thirdId >= 0 && postingCount(fuzzy, match.thirdId) < postingCount(fuzzy, rarest))
        rarest = match.thirdId
      tokens.add(rarest)
    }
    if (tokens.size === 0) continue
    groups++
    if (scratch.clock >= 0xfffffff0) {
      stamp.fill(0)
      scratch.clock = 0
    }
    const mark = ++scratch.clock
    for (const t of tokens) {
      for (let i = fuzzy.postingStart[t]!; i < fuzzy.postingStart[t + 1]!; i++) {
        const name = fuzzy.postings[i]!
        if (stamp[name] === mark) continue
        stamp[name] = mark
        if (counts[name] === 0) touched.push(name)
        if (counts[name]! < 255) counts[name]!++
      }
    }
  }
  const candidates: number[] = []
  const shared: number[] = []
  for (const name of touched) {
    const need = Math.min(2, groups, fuzzy.nameWords[name]!)
    if (counts[name]! >= need) {
      candidates.push(name)
      shared.push(counts[name]!)
    }
    counts[name] = 0
  }
  if (candidates.length > CANDIDATE_CAP) {
    // Too many (a query of common words: "Mohammad Ali ..."): the names that share the most
    // query parts first, so the one that has them all is never cut for one that has two.
    const order = Array.from(candidates.keys()).sort((a, b) => shared[b]! - shared[a]! || a - b)
    return order.slice(0, CANDIDATE_CAP).map((i) => candidates[i]!)
  }
  return candidates
}

function aliasOf(entry: SanctionsEntry, slot: number): SanctionsAlias | undefined {
  return slot === 0 ? undefined : entry.aliases[slot - 1]
}

function isWeak(alias: SanctionsAlias | undefined): boolean {
  return alias?.quality === 'weak' || alias?.quality === 'low'
}

function basisOf(entry: SanctionsEntry, alias: SanctionsAlias | undefined): MatchBasis {
  const basis: MatchBasis = alias
    ? { field: 'alias', value: alias.name }
    : { field: 'primary_name', value: entry.name }
  if (alias?.kind) basis.alias_kind = alias.kind
  if (alias?.quality) basis.alias_quality = alias.quality
  return basis
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000
}

interface Hit {
  entryIndex: number
  slot: number
  type: FuzzyMatchType
  nameScore: number
  /** Exact and word-order matches pass whatever the threshold (exact mode finds them too). */
  always: boolean
  detail: NameScore | null
}

/** The fuzzy index's name of an entry's slot (names are stored in entry order); -1 when absent. */
function nameOf(fuzzy: FuzzyIndex, entryIndex: number, slot: number): number {
  let low = 0
  let high = fuzzy.nameCount
  while (low < high) {
    const mid = (low + high) >>> 1
    if (fuzzy.nameEntry[mid]! < entryIndex) low = mid + 1
    else high = mid
  }
  for (let n = low; n < fuzzy.nameCount && fuzzy.nameEntry[n] === entryIndex; n++) {
    if (fuzzy.nameSlot[n] === slot) return n
  }
  return -1
}

/** The words of a name by segment, in one order whatever their order in the name. */
function bySegment(texts: Array<[string, number]>): string {
  return texts
    .map(([text, segment]) => `${segment}:${text}`)
    .sort()
    .join(' ')
}

function segmentsAgree(query: readonly QueryPart[], fuzzy: FuzzyIndex, name: number): boolean {
  const start = fuzzy.partStart[name]!
  const end = fuzzy.partStart[name + 1]!
  const listed: Array<[string, number]> = []
  for (let p = start; p < end; p++) listed.push([fuzzy.tokens[fuzzy.partToken[p]!]!, fuzzy.partSegment[p]!])
  return bySegment(query.map((part) => [part.text, part.segment])) === bySegment(listed)
}

/** Keeps `hit` as its entry's best: a higher name score, or on a tie an exact or word-order match. */
function offer(best: Map<number, Hit>, hit: Hit): void {
  const current = best.get(hit.entryIndex)
  if (
    current === undefined ||
    hit.nameScore > current.nameScore ||
    (hit.nameScore === current.nameScore && hit.always && !current.always)
  ) {
    best.set(hit.entryIndex, hit)
  }
}

/**
 * The exact screen's matches of one kind (the names under `refs`), with their exact-mode scores
 * and a breakdown; a word-order match across a patronymic particle does not count.
 */
function offerExact(
  index: SanctionsIndex,
  fuzzy: FuzzyIndex,
  query: readonly QueryPart[],
  best: Map<number, Hit>,
  refs: readonly number[] | undefined,
  type: 'name_exact' | 'name_tokens',
): void {
  for (const ref of refs ?? []) {
    const entryIndex = Math.floor(ref / REF_SLOTS)
    const slot = ref % REF_SLOTS
    const fuzzyName = nameOf(fuzzy, entryIndex, slot)
    if (type === 'name_tokens' && fuzzyName >= 0 && !segmentsAgree(query, fuzzy, fuzzyName)) continue
    const alias = aliasOf(index.entries[entryIndex]!, slot)
    const tier =
      alias === undefined || (alias.kind === 'original_script' && alias.quality === undefined) || !alias.kind
        ? MATCH_SCORES.primary
        : isWeak(alias)
          ? MATCH_SCORES.weakAlias
          : MATCH_SCORES.strongAlias
    const person = index.entries[entryIndex]!.entry_type === 'person'
    const detail = fuzzyName >= 0 ? scoreName(fuzzy, query, fuzzyName, [], NO_SPLIT_GROUPS, person) : null
    const factor = isWeak(alias) ? WEAK_ALIAS_FACTOR : 1
    offer(best, {
      entryIndex,
      slot,
      type,
      nameScore: Math.max(tier[type], (detail?.score ?? 0) * factor),
      always: true,
      detail,
    })
  }
}

/**
 * Screens a name in fuzzy mode (see the file comment). Same ordering rules as the exact screen
 * (`country` first, then score, list, list order); capped at `limit` with `truncated`.
 */
export function screenNameFuzzy(
  index: SanctionsIndex,
  name: string,
  options: FuzzyScreenOptions = {},
): FuzzyScreenResult {
  const threshold = options.threshold ?? DEFAULT_FUZZY_THRESHOLD
  const fuzzy = fuzzyIndexOf(index)
  const kind =
    options.entity_type === 'person'
      ? 'person'
      : options.entity_type === 'organization' || options.entity_type === 'vessel'
        ? 'organization'
        : 'any'
  const query = analyseQuery(fuzzy, name, kind)
  const best = new Map<number, Hit>()

  // Exact and word-order matches, as the exact screen finds them (same keys, same scores);
  // word order across a patronymic particle does not count ("Salman bin Muhammad" is not
  // "Muhammad bin Salman").
  const keys = nameKeys(name)
  if (keys) {
    offerExact(index, fuzzy, query, best, index.byExactName.get(keys.exact), 'name_exact')
    offerExact(index, fuzzy, query, best, index.byTokenKey.get(keys.tokens), 'name_tokens')
  }

  const { joined, split } = joinedAndSplit(fuzzy, query)
  // Evidence can lift a score by at most the positive effects of the evidence given.
  const lift =
    (options.id_number ? EVIDENCE_EFFECTS.idNumber : 0) +
    (options.birth_date ? EVIDENCE_EFFECTS.birthDateExact : 0) +
    (options.nationality ? EVIDENCE_EFFECTS.nationality : 0)
  const floor = Math.max(0, threshold - lift) * WEAK_ALIAS_FACTOR
  const twoForOne = new Set<number>()
  for (const match of joined) twoForOne.add(match.tokenId)
  // The split words by their first listed word, in their order (scoreName).
  const splitsByLeft = new Map<number, SplitMatch[]>()
  for (const match of split) {
    twoForOne.add(match.leftId)
    const group = splitsByLeft.get(match.leftId)
    if (group) group.push(match)
    else splitsByLeft.set(match.leftId, [match])
  }
  const bestSims = new Float64Array(query.length)
  const candidates = candidateNames(fuzzy, query, joined, split)
  const table = boundTableFor(fuzzy, query, twoForOne)
  for (const n of candidates) {
    if (!hasTwoForOne(fuzzy, table, n) && scoreBound(fuzzy, query, n, bestSims, table) < floor) continue
    const entryIndex = fuzzy.nameEntry[n]!
    const entry = index.entries[entryIndex]!
    const detail = scoreName(fuzzy, query, n, joined, splitsByLeft, entry.entry_type === 'person')
    if (!detail) continue
    const slot = fuzzy.nameSlot[n]!
    const factor = isWeak(aliasOf(entry, slot)) ? WEAK_ALIAS_FACTOR : 1
    const nameScore = detail.score * factor
    if (nameScore < floor / WEAK_ALIAS_FACTOR) continue
    const current = best.get(entryIndex)
    if (current?.always) continue
    const listedScript = SCRIPT_CODES[fuzzy.nameScript[n]!]!
    const queryScript = query.some((part) => part.script !== 'latin')
    const type: FuzzyMatchType =
      (listedScript !== 'latin') !== queryScript ||
      detail.pairs.some((pair) => pair.method === 'transliteration')
        ? 'name_transliterated'
        : detail.pairs.some((pair) => pair.method === 'phonetic' || pair.method === 'variant')
          ? 'name_phonetic'
          : 'name_fuzzy'
    offer(best, { entryIndex, slot, type, nameScore, always: false, detail })
  }

  const country = options.country?.toUpperCase()
  const ranked: Array<{ hit: Hit; score: number; adjustments: EvidenceAdjustment[]; countryFirst: boolean }> =
    []
  for (const hit of best.values()) {
    const entry = index.entries[hit.entryIndex]!
    const adjustments = evidenceAdjustments(entry, options)
    const score = Math.min(
      1,
      Math.max(0, hit.nameScore + adjustments.reduce((sum, adjustment) => sum + adjustment.effect, 0)),
    )
    if (!hit.always && score < threshold) continue
    ranked.push({
      hit,
      score: round(score),
      adjustments,
      countryFirst: country !== undefined && entry.countries.includes(country),
    })
  }
  ranked.sort(
    (a, b) =>
      Number(b.countryFirst) - Number(a.countryFirst) ||
      b.score - a.score ||
      LIST_ORDER[index.entries[a.hit.entryIndex]!.list] - LIST_ORDER[index.entries[b.hit.entryIndex]!.list] ||
      a.hit.entryIndex - b.hit.entryIndex,
  )
  const cap = Math.max(0, options.limit ?? DEFAULT_MATCH_LIMIT)
  const kept = ranked.length > cap ? ranked.slice(0, cap) : ranked
  return {
    matches: kept.map(({ hit, score, adjustments }) =>
      toMatch(index, fuzzy, query, hit, score, adjustments, threshold),
    ),
    truncated: ranked.length > cap,
    total_matches: ranked.length,
  }
}

/** A listed part's text (folded, transliterated). */
function listedText(fuzzy: FuzzyIndex, p: number): string {
  return fuzzy.tokens[fuzzy.partToken[p]!]!
}

/** Listed parts l0..l1 (l1 = -1: l0 alone), as one text. */
function listedRange(fuzzy: FuzzyIndex, l0: number, l1: number): string {
  const texts = [listedText(fuzzy, l0)]
  for (let p = l0 + 1; p <= l1; p++) texts.push(listedText(fuzzy, p))
  return texts.join(' ')
}

function toMatch(
  index: SanctionsIndex,
  fuzzy: FuzzyIndex,
  query: readonly QueryPart[],
  hit: Hit,
  score: number,
  adjustments: EvidenceAdjustment[],
  threshold: number,
): FuzzyMatch {
  const entry = index.entries[hit.entryIndex]!
  const alias = aliasOf(entry, hit.slot)
  const listedName = alias ? alias.name : entry.name
  const detail = hit.detail
  const name = nameOf(fuzzy, hit.entryIndex, hit.slot)
  const listedParts: string[] = []
  if (name >= 0) {
    for (let p = fuzzy.partStart[name]!; p < fuzzy.partStart[name + 1]!; p++)
      listedParts.push(listedText(fuzzy, p))
  }
  return {
    ...baseMatch(entry),
    matched_name: listedName,
    match_score: score,
    match_type: hit.type,
    basis: basisOf(entry, alias),
    score_breakdown: {
      listed_name: listedName,
      listed_as: listedParts.join(' '),
      query_as: query.map((part) => part.text).join(' '),
      name_score: round(hit.nameScore),
      parts: (detail?.pairs ?? []).map((pair) => ({
        query: query
          .slice(pair.q0, (pair.q1 >= 0 ? pair.q1 : pair.q0) + 1)
          .map((part) => part.text)
          .join(' '),
        listed: listedRange(fuzzy, pair.l0, pair.l1),
        similarity: round(pair.sim),
        method: pair.method,
      })),
      unmatched_query_parts: (detail?.unmatchedQuery ?? []).map((q) => query[q]!.text),
      unmatched_listed_parts: (detail?.unmatchedListed ?? []).map((p) => listedText(fuzzy, p)),
      ignored_parts: [
        ...query.filter((part) => IGNORED_ROLES.has(part.role)).map((part) => part.text),
        ...(detail?.ignoredListed ?? []).map((p) => listedText(fuzzy, p)),
      ],
      alias_factor: isWeak(alias) ? WEAK_ALIAS_FACTOR : 1,
      evidence: adjustments,
      threshold,
    },
  }
}

/** Which kind of name analysis an entry's names get (for tests and the benchmark). */
export { nameKindOf }
