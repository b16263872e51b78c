import { distance } from 'fastest-levenshtein'
import talismanJaroWinkler from 'talisman/metrics/jaro-winkler.js'

/**
 * The edit-distance family measures the fuzzy matcher aligns name parts with. Both come from
 * maintained libraries (talisman's Jaro-Winkler, fastest-levenshtein's Myers bit-vector
 * Levenshtein); this file only gives them one shape.
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
 * The similarity of two words the matcher uses for edit-distance pairs: the mean of
 * Jaro-Winkler (which forgives a changed ending) and Levenshtein (which does not reward a
 * shared beginning), so "Cherbov" / "Chekunov" (0.68) stays apart while a typo such as
 * "Managng" / "Managing" (0.92) pairs.
 */
export function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1
  return (jaroWinkler(a, b) + levenshteinSimilarity(a, b)) / 2
}
