import { describe, expect, it } from 'vitest'
import { wordSimilarity, wordSimilarityBound } from './name-similarity.ts'

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

  it('rules out words that share an ending but few letters', () => {
    // "trading" and "painting" share -ing; p, i, n of one are missing from the other.
    expect(wordSimilarityBound('trading', 'painting')).toBeCloseTo(0.8125, 6)
    expect(wordSimilarityBound('trading', 'banking')).toBeLessThan(0.8)
    expect(wordSimilarityBound('putin', 'ptuin')).toBe(1)
  })
})
