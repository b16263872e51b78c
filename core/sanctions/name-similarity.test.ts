import talismanDamerauLevenshtein from 'talisman/metrics/damerau-levenshtein.js'
import talismanJaroWinkler from 'talisman/metrics/jaro-winkler.js'
import { describe, expect, it } from 'vitest'
import {
  damerauDistance,
  jaroWinkler,
  jaroWinklerBound,
  wordSimilarity,
  wordSimilarityBound,
  wordSimilarityBoundFrom,
} from './name-similarity.ts'

/** A small seeded generator (mulberry32), so the pairs are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Word pairs as the matcher meets them: random words over a small alphabet (so letters repeat
 * and transpose), each with a typo of every kind, and unrelated pairs of other lengths.
 */
function wordPairs(count: number): Array<[string, string]> {
  const next = seeded(24)
  const alphabets = ['abc', 'aeinrst', 'abcdefghijklmnopqrstuvwxyz', 'ab', 'mhdauoe']
  const word = (letters: string, length: number) =>
    Array.from({ length }, () => letters[Math.floor(next() * letters.length)]!).join('')
  const pairs: Array<[string, string]> = [
    ['', ''],
    ['', 'a'],
    ['a', ''],
    ['mohammed', 'muhammad'],
    ['ab', 'ba'],
    ['abc', 'ca'],
    ['igor', 'igpr'],
    ['putin', 'ptuin'],
    ['\u0645\u062d\u0645\u062f', '\u0627\u062d\u0645\u062f'],
  ]
  while (pairs.length < count) {
    const letters = alphabets[Math.floor(next() * alphabets.length)]!
    const a = word(letters, Math.floor(next() * 13))
    const at = Math.floor(next() * (a.length + 1))
    const letter = word(letters, 1)
    const typos = [
      a.slice(0, at) + letter + a.slice(at),
      a.slice(0, at) + a.slice(at + 1),
      a.slice(0, at) + letter + a.slice(at + 1),
      a.slice(0, at) + a.slice(at + 1, at + 2) + a.slice(at, at + 1) + a.slice(at + 2),
      word(letters, Math.floor(next() * 13)),
    ]
    for (const b of typos) pairs.push(next() < 0.5 ? [a, b] : [b, a])
  }
  return pairs
}

describe('jaroWinkler and damerauDistance', () => {
  it('answer exactly what talisman answers (same floating-point value), pair for pair', () => {
    let differences = 0
    for (const [a, b] of wordPairs(200_000)) {
      const expectedJw = a.length === 0 || b.length === 0 ? (a === b ? 1 : 0) : talismanJaroWinkler(a, b)
      if (!Object.is(jaroWinkler(a, b), expectedJw)) differences++
      if (damerauDistance(a, b) !== talismanDamerauLevenshtein(a, b)) differences++
    }
    expect(differences).toBe(0)
  })
})

describe('wordSimilarityBound', () => {
  it('is never under wordSimilarity, so skipping the words it rules out changes no result', () => {
    const words = [
      'trading',
      'training',
      'unlisted',
      'lukashenka',
      'lukashenko',
      'mohammed',
      'muhammad',
      'igor',
      'igpr',
      'ptuin',
      'putin',
      'abcd',
      'dcba',
      'aaaa',
      'banking',
      'baunking',
      'painting',
      'heading',
      'nnnnii',
      'inin',
    ]
    for (const a of words) {
      for (const b of words) {
        expect(wordSimilarityBound(a, b)).toBeGreaterThanOrEqual(wordSimilarity(a, b) - 1e-9)
      }
    }
  })

  it('is never under wordSimilarity over 200,000 pairs of words and their typos', () => {
    let under = 0
    for (const [a, b] of wordPairs(200_000))
      if (wordSimilarityBound(a, b) < wordSimilarity(a, b) - 1e-9) under++
    expect(under).toBe(0)
  })

  it('answers the same with the first word prepared once (wordSimilarityBoundFrom)', () => {
    let different = 0
    for (const [a, b] of [
      ...wordPairs(50_000),
      ['\u00e9t\u00e9', 'ete'] as [string, string],
      ['ete', '\u00e9t\u00e9'] as [string, string],
    ]) {
      if (!Object.is(wordSimilarityBoundFrom(a)(b), wordSimilarityBound(a, b))) different++
    }
    expect(different).toBe(0)
  })

  it('has a Jaro-Winkler half that is never under jaroWinkler', () => {
    let under = 0
    for (const [a, b] of wordPairs(200_000)) if (jaroWinklerBound(a, b) < jaroWinkler(a, b) - 1e-9) under++
    expect(under).toBe(0)
    expect(jaroWinklerBound('putin', 'ptuin')).toBe(1)
    expect(jaroWinklerBound('trading', 'painting')).toBeCloseTo((5 / 7 + 5 / 8 + 1) / 3, 9)
  })

  it('rules out words that share an ending but few letters', () => {
    // "trading" and "painting" share -ing; p, i, n of one are missing from the other (Damerau
    // bound 1 - 3/8), and they share five letters and no first letter (Jaro bound (5/7 + 5/8 + 1) / 3).
    expect(wordSimilarityBound('trading', 'painting')).toBeCloseTo(
      (1 - 3 / 8 + (5 / 7 + 5 / 8 + 1) / 3) / 2,
      9,
    )
    expect(wordSimilarityBound('trading', 'banking')).toBeLessThan(0.8)
    expect(wordSimilarityBound('putin', 'ptuin')).toBe(1)
  })
})
