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
