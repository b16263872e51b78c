import {
  type AnalysedName,
  analyseName,
  forgetNameAnalysisAnswers,
  isAbjad,
  type NamePartRole,
  type NameScript,
  phoneticKeys,
} from './fuzzy-name-parts.ts'
import type { SanctionsEntry } from './types.ts'

/**
 * The fuzzy screen's index over every listed name (primary names and all aliases, every
 * script). Compact by construction: name parts are interned once in a vocabulary, and names,
 * parts and postings are typed arrays (no object per name, no second copy of the entries; the
 * entries stay in the exact index and are read by position).
 *
 * Lookups, all from a name part to vocabulary ids, so a query part finds the listed parts it
 * may match (candidate generation); the scoring in fuzzy-screen.ts then aligns whole names:
 * - exact folded text;
 * - Double Metaphone codes (phonetic key);
 * - first three and last three letters (one typo leaves one of them whole);
 * - one edit away (a letter left out, added, changed or two swapped), by the one-deletion
 *   neighbourhood of every Latin part (the symmetric-delete method of SymSpell): a typo in the
 *   first or last three letters of a short word ("Igpr" / "Igor") is found too;
 * - consonant skeleton, for parts written in Arabic or Hebrew.
 */

export const ROLE_CODES: readonly NamePartRole[] = [
  'name',
  'particle',
  'article',
  'honorific',
  'legal_form',
  'stopword',
]
export const SCRIPT_CODES: readonly NameScript[] = [
  'latin',
  'cyrillic',
  'greek',
  'arabic',
  'hebrew',
  'armenian',
  'georgian',
  'han',
  'hangul',
  'kana',
  'other',
]

export interface FuzzyIndex {
  /** Vocabulary: folded part text by id. */
  readonly tokens: readonly string[]
  readonly tokenIds: ReadonlyMap<string, number>
  /** Per token: 1 when it was written in an abjad script (Arabic, Hebrew). */
  readonly tokenAbjad: Uint8Array
  /** Consonant skeletons of each abjad token (abjadSkeletons of its own letters, every reading). */
  readonly tokenSkeleton: ReadonlyMap<number, readonly string[]>
  /** Per token: how much a match on it says (rarer parts say more), 0.35-1. */
  readonly tokenWeight: Float32Array
  /** Token postings (CSR): names containing token t are postings[postingStart[t] .. postingStart[t+1]). */
  readonly postingStart: Uint32Array
  readonly postings: Uint32Array
  /** Per name: the entry index (into the exact index's entries) and the alias slot (0 = primary). */
  readonly nameEntry: Uint32Array
  readonly nameSlot: Uint16Array
  /** Per name: script code of its letters (SCRIPT_CODES). */
  readonly nameScript: Uint8Array
  /** Parts (CSR): name n's parts are partStart[n] .. partStart[n+1]. */
  readonly partStart: Uint32Array
  readonly partToken: Uint32Array
  readonly partRole: Uint8Array
  readonly partSegment: Uint8Array
  /** Per name: how many of its parts are name words (role `name`), at most 255. */
  readonly nameWords: Uint8Array
  readonly byPhonetic: ReadonlyMap<string, readonly number[]>
  readonly byPrefix: ReadonlyMap<string, readonly number[]>
  readonly bySuffix: ReadonlyMap<string, readonly number[]>
  /** Consonant skeleton (every reading) -> abjad tokens. */
  readonly bySkeleton: ReadonlyMap<string, readonly number[]>
  /**
   * One-deletion neighbourhood of the Latin tokens: the hash of each token with one letter
   * removed (sorted), and the token it came from at the same position. Hashes, not strings:
   * half a million of them in two typed arrays instead of a map of strings (a collision only adds
   * a candidate that the comparison then refuses).
   */
  readonly deletionKeys: Uint32Array
  readonly deletionTokens: Uint32Array
  readonly nameCount: number
}

/** Shortest and longest token given a one-deletion neighbourhood (longer words get their typos from prefix and suffix too). */
const DELETION_MIN_LENGTH = 3
const DELETION_MAX_LENGTH = 16

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function hashText(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** The distinct strings `text` becomes with one letter removed. */
export function oneDeletions(text: string): string[] {
  const out = new Set<string>()
  for (let i = 0; i < text.length; i++) out.add(text.slice(0, i) + text.slice(i + 1))
  return [...out]
}

function buildDeletionNeighbourhood(
  tokens: readonly string[],
  abjad: readonly number[],
): { deletionKeys: Uint32Array; deletionTokens: Uint32Array } {
  const keys: number[] = []
  const ids: number[] = []
  for (let t = 0; t < tokens.length; t++) {
    const text = tokens[t]!
    if (abjad[t] === 1 || text.length < DELETION_MIN_LENGTH || text.length > DELETION_MAX_LENGTH) continue
    for (const deletion of oneDeletions(text)) {
      keys.push(hashText(deletion))
      ids.push(t)
    }
  }
  const order = Array.from(keys.keys()).sort((a, b) => keys[a]! - keys[b]!)
  return {
    deletionKeys: Uint32Array.from(order, (i) => keys[i]!),
    deletionTokens: Uint32Array.from(order, (i) => ids[i]!),
  }
}

/** Tokens whose one-deletion neighbourhood holds `text` (binary search on the sorted hashes). */
function tokensByDeletion(fuzzy: FuzzyIndex, text: string, into: number[]): void {
  const key = hashText(text)
  const keys = fuzzy.deletionKeys
  let low = 0
  let high = keys.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (keys[mid]! < key) low = mid + 1
    else high = mid
  }
  for (let i = low; i < keys.length && keys[i] === key; i++) into.push(fuzzy.deletionTokens[i]!)
}

/**
 * Latin tokens one edit away from `text` (a letter left out, added or changed, two letters
 * swapped), and some that only share a hash: candidates, which the comparison then scores.
 */
export function tokensWithinOneEdit(fuzzy: FuzzyIndex, text: string): number[] {
  if (text.length < DELETION_MIN_LENGTH - 1 || text.length > DELETION_MAX_LENGTH + 1) return []
  const found: number[] = []
  // A letter added in the query: the listed token is one of the query's deletions.
  // A letter left out: the query is one of the listed token's deletions.
  // A letter changed or two swapped: they share a deletion.
  tokensByDeletion(fuzzy, text, found)
  for (const deletion of oneDeletions(text)) {
    const id = fuzzy.tokenIds.get(deletion)
    if (id !== undefined && fuzzy.tokenAbjad[id] === 0) found.push(id)
    tokensByDeletion(fuzzy, deletion, found)
  }
  return found
}

function pushTo(map: Map<string, number[]>, key: string, id: number): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [id])
  else if (list[list.length - 1] !== id) list.push(id)
}

/** What kind of name an entry carries, for honorifics and legal forms. */
export function nameKindOf(entry: Pick<SanctionsEntry, 'entry_type'>): 'person' | 'organization' {
  return entry.entry_type === 'person' ? 'person' : 'organization'
}

/**
 * Builds the fuzzy index over the entries of the exact index (same order, so a name's entry
 * index is the exact index's). Pure and synchronous; about a second for the three full lists.
 */
export function buildFuzzyIndex(entries: readonly SanctionsEntry[]): FuzzyIndex {
  const tokens: string[] = []
  const tokenIds = new Map<string, number>()
  const abjad: number[] = []
  const tokenSkeleton = new Map<number, readonly string[]>()
  const nameEntry: number[] = []
  const nameSlot: number[] = []
  const nameScript: number[] = []
  const partStart: number[] = [0]
  const partToken: number[] = []
  const partRole: number[] = []
  const partSegment: number[] = []
  const intern = (text: string, skeletons: readonly string[]): number => {
    let id = tokenIds.get(text)
    if (id === undefined) {
      id = tokens.length
      tokens.push(text)
      tokenIds.set(text, id)
      abjad.push(0)
    }
    if (skeletons.length > 0) {
      abjad[id] = 1
      // Two Arabic-script words may fold to the same Latin letters (ذر and دهر are both
      // "dhr"): the token keeps the readings of both, so neither spelling is lost.
      const known = tokenSkeleton.get(id)
      if (known === undefined) tokenSkeleton.set(id, skeletons)
      else if (skeletons.some((skeleton) => !known.includes(skeleton)))
        tokenSkeleton.set(id, [...new Set([...known, ...skeletons])])
    }
    return id
  }
  const addName = (analysed: AnalysedName, entryIndex: number, slot: number) => {
    if (analysed.parts.length === 0) return
    nameEntry.push(entryIndex)
    nameSlot.push(slot)
    nameScript.push(SCRIPT_CODES.indexOf(analysed.script))
    for (const part of analysed.parts) {
      partToken.push(intern(part.text, isAbjad(part.script) ? part.skeletons : []))
      partRole.push(ROLE_CODES.indexOf(part.role))
      partSegment.push(Math.min(part.segment, 255))
    }
    partStart.push(partToken.length)
  }
  for (let entryIndex = 0; entryIndex < entries.length; entryIndex++) {
    const entry = entries[entryIndex]!
    const kind = nameKindOf(entry)
    addName(analyseName(entry.name, kind), entryIndex, 0)
    for (let slot = 0; slot < entry.aliases.length; slot++) {
      addName(analyseName(entry.aliases[slot]!.name, kind), entryIndex, slot + 1)
    }
  }

  forgetNameAnalysisAnswers()

  const nameCount = nameEntry.length
  const counts = new Uint32Array(tokens.length + 1)
  for (let name = 0; name < nameCount; name++) {
    let last = -1
    for (let p = partStart[name]!; p < partStart[name + 1]!; p++) {
      const token = partToken[p]!
      if (token !== last) counts[token]!++
      last = token
    }
  }
  const postingStart = new Uint32Array(tokens.length + 1)
  for (let t = 0; t < tokens.length; t++) postingStart[t + 1] = postingStart[t]! + counts[t]!
  const postings = new Uint32Array(postingStart[tokens.length]!)
  const fill = postingStart.slice(0, tokens.length)
  for (let name = 0; name < nameCount; name++) {
    const seen = new Set<number>()
    for (let p = partStart[name]!; p < partStart[name + 1]!; p++) {
      const token = partToken[p]!
      if (seen.has(token)) continue
      seen.add(token)
      postings[fill[token]!++] = name
    }
  }

  const nameWords = new Uint8Array(nameCount)
  for (let name = 0; name < nameCount; name++) {
    let words = 0
    for (let p = partStart[name]!; p < partStart[name + 1]!; p++) if (partRole[p] === 0) words++
    nameWords[name] = Math.min(words, 255)
  }

  const tokenWeight = new Float32Array(tokens.length)
  const logNames = Math.log(nameCount + 1)
  for (let t = 0; t < tokens.length; t++) {
    const df = postingStart[t + 1]! - postingStart[t]!
    tokenWeight[t] = Math.min(1, Math.max(0.35, Math.log((nameCount + 1) / (df + 1)) / (logNames * 0.55)))
  }

  const byPhonetic = new Map<string, number[]>()
  const byPrefix = new Map<string, number[]>()
  const bySuffix = new Map<string, number[]>()
  const bySkeleton = new Map<string, number[]>()
  for (let t = 0; t < tokens.length; t++) {
    const text = tokens[t]!
    for (const key of phoneticKeys(text)) pushTo(byPhonetic, key, t)
    if (text.length >= 4) {
      pushTo(byPrefix, text.slice(0, 3), t)
      pushTo(bySuffix, text.slice(-3), t)
    }
    for (const skeleton of tokenSkeleton.get(t) ?? []) pushTo(bySkeleton, skeleton, t)
  }

  return {
    ...buildDeletionNeighbourhood(tokens, abjad),
    tokens,
    tokenIds,
    tokenAbjad: Uint8Array.from(abjad),
    tokenSkeleton,
    tokenWeight,
    postingStart,
    postings,
    nameEntry: Uint32Array.from(nameEntry),
    nameSlot: Uint16Array.from(nameSlot),
    nameScript: Uint8Array.from(nameScript),
    partStart: Uint32Array.from(partStart),
    partToken: Uint32Array.from(partToken),
    partRole: Uint8Array.from(partRole),
    partSegment: Uint8Array.from(partSegment),
    nameWords,
    byPhonetic,
    byPrefix,
    bySuffix,
    bySkeleton,
    nameCount,
  }
}
