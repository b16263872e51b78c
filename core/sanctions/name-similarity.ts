import { distance } from 'fastest-levenshtein'

/**
 * The edit-distance family measures the fuzzy matcher aligns name parts with: Jaro-Winkler and
 * Damerau-Levenshtein (optimal string alignment) as talisman computes them, step for step (same
 * arithmetic, so the same floating-point answers: name-similarity.test.ts checks them against
 * talisman over many thousands of pairs), over UTF-16 code units and reused typed arrays instead
 * of per-call arrays and one-letter strings: they run for every candidate word of every screen,
 * and talisman's own code spent most of its time allocating. Levenshtein is fastest-levenshtein's
 * Myers bit-vector.
 */

/** Scratch for jaro: which letters of the longer word are matched, which of the shorter. */
let jaroFlags = new Uint8Array(64)
let jaroMatched = new Uint8Array(64)
/** Scratch for damerauDistance: two rows of the edit matrix. */
let rowCost = new Int32Array(64)
let rowDiagonal = new Int32Array(64)

/** Jaro similarity, talisman's algorithm (metrics/jaro.js): 0-1, 1 = same string. */
function jaro(a: string, b: string): number {
  if (a === b) return 1
  const [max, min] = a.length > b.length ? [a, b] : [b, a]
  const maxLength = max.length
  const minLength = min.length
  if (jaroFlags.length < maxLength) jaroFlags = new Uint8Array(maxLength * 2)
  if (jaroMatched.length < minLength) jaroMatched = new Uint8Array(minLength * 2)
  const flags = jaroFlags
  const matched = jaroMatched
  flags.fill(0, 0, maxLength)
  const range = Math.max(((maxLength / 2) | 0) - 1, 0)
  let matches = 0
  for (let i = 0; i < minLength; i++) {
    matched[i] = 0
    const code = min.charCodeAt(i)
    const end = Math.min(i + range + 1, maxLength)
    for (let j = Math.max(i - range, 0); j < end; j++) {
      if (flags[j] === 0 && code === max.charCodeAt(j)) {
        flags[j] = 1
        matched[i] = 1
        matches++
        break
      }
    }
  }
  if (matches === 0) return 0
  // The matched letters of each word in order; a position where they differ is half a transposition.
  let transpositions = 0
  let k = 0
  for (let i = 0; i < minLength; i++) {
    if (matched[i] === 0) continue
    while (flags[k] === 0) k++
    if (min.charCodeAt(i) !== max.charCodeAt(k)) transpositions++
    k++
  }
  const t = (transpositions / 2) | 0
  const m = matches
  return (m / a.length + m / b.length + (m - t) / m) / 3
}

/** Jaro-Winkler as talisman computes it (boost threshold 0.7, scaling factor 0.1, prefix up to 4). */
function jaroWinklerOf(a: string, b: string): number {
  if (a === b) return 1
  const dj = jaro(a, b)
  if (dj < 0.7) return dj
  const p = 0.1
  let l = 0
  const prefixLimit = Math.min(a.length, b.length, 4)
  for (let i = 0; i < prefixLimit; i++) {
    if (a.charCodeAt(i) === b.charCodeAt(i)) l++
    else break
  }
  return dj + l * p * (1 - dj)
}

/**
 * Damerau-Levenshtein distance (optimal string alignment), talisman's algorithm
 * (metrics/damerau-levenshtein.js) with its shortcuts: the shorter word first, a common suffix
 * and (when the first letters agree) a common prefix left out, two rows of the matrix.
 */
export function damerauDistance(first: string, second: string): number {
  if (first === second) return 0
  let a = first
  let b = second
  let la = a.length
  let lb = b.length
  if (la === 0) return lb
  if (lb === 0) return la
  if (la > lb) {
    a = second
    b = first
    la = a.length
    lb = b.length
  }
  while (la > 0 && a.charCodeAt(la - 1) === b.charCodeAt(lb - 1)) {
    la--
    lb--
  }
  let start = 0
  // Where b's compared letters begin (talisman slices b there).
  let bStart = 0
  if (la === 0 || a.charCodeAt(0) === b.charCodeAt(0)) {
    while (start < la && a.charCodeAt(start) === b.charCodeAt(start)) start++
    la -= start
    lb -= start
    if (la === 0) return lb
    bStart = start
  }
  if (rowCost.length < lb) {
    rowCost = new Int32Array(lb * 2)
    rowDiagonal = new Int32Array(lb * 2)
  }
  const v0 = rowCost
  const v2 = rowDiagonal
  for (let i = 0; i < lb; i++) v0[i] = i + 1
  let charA = a.charCodeAt(0)
  let current = 0
  for (let i = 0; i < la; i++) {
    const previousCharA = charA
    let nextTranspositionCost = 0
    let charB = b.charCodeAt(bStart)
    let left = i
    current = i + 1
    charA = a.charCodeAt(start + i)
    for (let j = 0; j < lb; j++) {
      const above = current
      const previousCharB = charB
      let thisTranspositionCost = nextTranspositionCost
      charB = b.charCodeAt(bStart + j)
      // Row 0 reads no transposition cost (talisman's array is still empty there).
      nextTranspositionCost = v2[j]!
      current = left
      v2[j] = left
      left = v0[j]!
      if (charA !== charB) {
        if (left < current) current = left
        if (above < current) current = above
        current++
        if (i !== 0 && j !== 0 && charA === previousCharB && charB === previousCharA) {
          thisTranspositionCost++
          if (thisTranspositionCost < current) current = thisTranspositionCost
        }
      }
      v0[j] = current
    }
  }
  return current
}

/** Jaro-Winkler similarity, 0-1 (1 = same string); rewards a shared beginning, as names have. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1
  if (a.length === 0 || b.length === 0) return 0
  return jaroWinklerOf(a, b)
}

/** 1 - Levenshtein distance / length of the longer string, 0-1. */
export function levenshteinSimilarity(a: string, b: string): number {
  if (a === b) return 1
  const longer = Math.max(a.length, b.length)
  return longer === 0 ? 1 : 1 - distance(a, b) / longer
}

/**
 * 1 - Damerau-Levenshtein distance (optimal string alignment: two swapped neighbours are one
 * edit, as a typist makes them) / length of the longer string, 0-1.
 */
export function damerauSimilarity(a: string, b: string): number {
  if (a === b) return 1
  const longer = Math.max(a.length, b.length)
  return longer === 0 ? 1 : 1 - damerauDistance(a, b) / longer
}

/**
 * The similarity of two words the matcher uses for edit-distance pairs: the mean of
 * Jaro-Winkler (which forgives a changed ending) and Damerau-Levenshtein (which does not reward
 * a shared beginning, and counts two swapped letters as one typo), so "Cherbov" / "Chekunov"
 * (0.68) stays apart while typos such as "Managng" / "Managing" (0.92) and "Gagn" / "Gang" pair.
 */
export function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1
  return (jaroWinkler(a, b) + damerauSimilarity(a, b)) / 2
}

const letterCounts = new Int32Array(65536)

/**
 * An upper bound of wordSimilarity that costs one pass over both words, so the candidates that
 * cannot reach a floor are not compared at all (most of those a common ending such as "-ing"
 * brings). From the letters one word has and the other lacks (counted as multisets: onlyA,
 * onlyB; the rest, `common`, is what both share):
 * - Damerau-Levenshtein: each edit changes at most one letter of each word's multiset, so the
 *   distance is at least max(onlyA, onlyB);
 * - Jaro: a match pairs two equal letters, one of each word, so there are at most `common`
 *   matches m, and (m - t) / m is at most 1: Jaro <= (common / |a| + common / |b| + 1) / 3
 *   (it grows with m); Jaro-Winkler adds l x 0.1 x (1 - Jaro) for a shared beginning of l
 *   letters (at most 4) when Jaro is 0.7 or more, which also grows with Jaro, so the same
 *   formula at the Jaro bound bounds it.
 */
export function wordSimilarityBound(a: string, b: string): number {
  if (a === b) return 1
  for (let i = 0; i < a.length; i++) letterCounts[a.charCodeAt(i)]!++
  for (let i = 0; i < b.length; i++) letterCounts[b.charCodeAt(i)]!--
  let onlyA = 0
  let onlyB = 0
  // Each letter is counted once (its count then reset): positive, a has more; negative, b has.
  for (let i = 0; i < a.length; i++) {
    const code = a.charCodeAt(i)
    const count = letterCounts[code]!
    if (count > 0) onlyA += count
    else if (count < 0) onlyB -= count
    letterCounts[code] = 0
  }
  for (let i = 0; i < b.length; i++) {
    const code = b.charCodeAt(i)
    const count = letterCounts[code]!
    if (count < 0) onlyB -= count
    letterCounts[code] = 0
  }
  const longer = Math.max(a.length, b.length)
  const damerau = 1 - Math.max(onlyA, onlyB) / longer
  return (jaroWinklerCeiling(a, b, a.length - onlyA) + damerau) / 2
}

/**
 * wordSimilarityBound(a, b) for one word `a` and many words `b`, the same values: a's letters
 * are counted once (compareWithVocabulary bounds a query word against a hundred candidates), so
 * each candidate costs two passes over its own letters. ASCII words (the folded parts are);
 * any other falls back to wordSimilarityBound.
 */
export function wordSimilarityBoundFrom(a: string): (b: string) => number {
  const counts = new Int32Array(128)
  for (let i = 0; i < a.length; i++) {
    const code = a.charCodeAt(i)
    if (code >= 128) return (b) => wordSimilarityBound(a, b)
    counts[code]!++
  }
  const used = new Int32Array(128)
  return (b) => {
    if (a === b) return 1
    let common = 0
    let i = 0
    for (; i < b.length; i++) {
      const code = b.charCodeAt(i)
      if (code >= 128) break
      if (used[code]! < counts[code]!) common++
      used[code]!++
    }
    for (let j = 0; j < i; j++) used[b.charCodeAt(j)] = 0
    if (i < b.length) return wordSimilarityBound(a, b)
    const longer = Math.max(a.length, b.length)
    const damerau = 1 - Math.max(a.length - common, b.length - common) / longer
    return (jaroWinklerCeiling(a, b, common) + damerau) / 2
  }
}

/** Jaro-Winkler's upper bound for two words that share `common` letters (see wordSimilarityBound). */
function jaroWinklerCeiling(a: string, b: string, common: number): number {
  if (common === 0 || a.length === 0 || b.length === 0) return 0
  let jaro = (common / a.length + common / b.length + 1) / 3
  if (jaro >= 0.7) {
    let prefix = 0
    const limit = Math.min(a.length, b.length, 4)
    while (prefix < limit && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++
    jaro += prefix * 0.1 * (1 - jaro)
  }
  return jaro
}

/**
 * An upper bound of jaroWinkler in one pass over both words (the Jaro-Winkler half of
 * wordSimilarityBound), so a word is compared in full only with forms it may come close to.
 */
export function jaroWinklerBound(a: string, b: string): number {
  if (a === b) return 1
  for (let i = 0; i < b.length; i++) letterCounts[b.charCodeAt(i)]!++
  let common = 0
  for (let i = 0; i < a.length; i++) {
    const code = a.charCodeAt(i)
    if (letterCounts[code]! > 0) {
      letterCounts[code]!--
      common++
    }
  }
  for (let i = 0; i < b.length; i++) letterCounts[b.charCodeAt(i)] = 0
  return jaroWinklerCeiling(a, b, common)
}
