import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { abjadSkeletons, CONSONANT_GLIDES, consonantSkeletons, LATIN_READINGS } from './fuzzy-name-parts.ts'

/*
 * Reading skeletons the way the matcher first wrote it, with regular expressions and a scan of the
 * whole spelling table (the same table): the one-pass consonantsOf and the by-first-letter lookup
 * must answer the same for every word.
 */

function referenceConsonantsOf(letters: string): string {
  return letters
    .replace(/(.)\1+/g, '$1')
    .replace(/[aeiouywv0-9]/g, '')
    .toLowerCase()
}

function referenceSkeletons(text: string): string[] {
  const units: Array<readonly string[]> = []
  for (let at = 0; at < text.length; ) {
    const first = at === 0 ? CONSONANT_GLIDES[text[0]!] : undefined
    if (first !== undefined && text.length > 2) {
      units.push([first, ''])
      at++
      continue
    }
    const reading = LATIN_READINGS.find(([spelling]) => text.startsWith(spelling, at))
    if (reading) {
      units.push(reading[1])
      at += reading[0].length
    } else if (text[at] === 'h' && at === text.length - 1 && at > 1) {
      units.push(['', 'h'])
      at++
    } else {
      units.push([text[at]!])
      at++
    }
  }
  let readings = ['']
  for (const options of units) {
    if (options.length === 1 || readings.length * options.length > 12) {
      readings = readings.map((reading) => reading + options[0]!)
    } else readings = readings.flatMap((reading) => options.map((option) => reading + option))
  }
  const skeletons = new Set(readings.map(referenceConsonantsOf))
  if (/^abd[aeiou]l$/.test(text)) skeletons.add('bd')
  skeletons.delete('')
  return [...skeletons]
}

const latinWord = fc
  .array(
    fc.constantFrom(
      ...'abcdeghijklmnopqrstuvwxyz0'.split(''),
      'sch',
      'kh',
      'gh',
      'sh',
      'ch',
      'th',
      'dh',
      'zh',
      'ou',
      'ee',
      'aa',
      'bb',
    ),
    { maxLength: 9 },
  )
  .map((pieces) => pieces.join(''))

describe('consonantSkeletons', () => {
  it('reads every Latin word as the regular-expression reading does', () => {
    fc.assert(
      fc.property(latinWord, (word) => {
        expect([...consonantSkeletons(word)]).toEqual(referenceSkeletons(word))
      }),
      { numRuns: 20_000, seed: 24 },
    )
    for (const word of [
      'muhammad',
      'abdul',
      'yousef',
      'vali',
      'saleh',
      'abdullah',
      'eshaghi',
      'bab',
      'a\n\nb',
    ])
      expect([...consonantSkeletons(word)]).toEqual(referenceSkeletons(word))
  })
})

describe('abjadSkeletons', () => {
  it('keeps the readings of Arabic-script words (one-pass consonantsOf)', () => {
    expect(abjadSkeletons('محمد')).toEqual(['mhmd'])
    expect(abjadSkeletons('عدنان')).toEqual(['dnn'])
    expect(abjadSkeletons('ولی')).toEqual(['l', 'wl'])
    expect(abjadSkeletons('الأسد')).toEqual(['lsd', 'sd'])
  })
})
