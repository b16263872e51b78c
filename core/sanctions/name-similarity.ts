import { distance } from 'fastest-levenshtein'
import talismanDamerauLevenshtein from 'talisman/metrics/damerau-levenshtein.js'
import talismanJaroWinkler from 'talisman/metrics/jaro-winkler.js'

/**
 * The edit-distance family measures the fuzzy matcher aligns name parts with. All come from
 * maintained libraries (talisman's Jaro-Winkler and Damerau-Levenshtein, fastest-levenshtein's
 * Myers bit-vector Levenshtein); this file only gives them one shape.
 */

/** Jaro-Winkler similarity, 0-1 (1 = same string); rewards a shared beginning, as names have. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1
  if (a.length === 0 || b.length === 0) return 0
  return talismanJaroWinkler(a, b)
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
  return longer === 0 ? 1 : 1 - talismanDamerauLevenshtein(a, b) / longer
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
 * brings). Each edit changes at most one letter of each word's letter multiset, so the
 * Damerau-Levenshtein distance is at least the larger count of letters one word has and the
 * other lacks; Jaro-Winkler is at most 1.
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
  return (1 + 1 - Math.max(onlyA, onlyB) / longer) / 2
}
