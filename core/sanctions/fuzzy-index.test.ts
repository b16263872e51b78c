import { describe, expect, it } from 'vitest'
import { buildFuzzyIndex, oneDeletions, tokensWithinOneEdit } from './fuzzy-index.ts'
import type { SanctionsEntry } from './types.ts'

function person(id: string, name: string): SanctionsEntry {
  return {
    list: 'ofac_sdn',
    entry_id: id,
    entry_type: 'person',
    name,
    aliases: [],
    programmes: ['SDGT'],
    countries: [],
    listed_on: null,
    identifiers: [],
  }
}

const index = buildFuzzyIndex([
  person('1', 'SHUVALOV, Igor Ivanovich'),
  person('2', 'BADEGE, Eric'),
  person('3', 'FETTAR, Rachid'),
  person('4', 'KALA PENSION TRUST LIMITED'),
  person('5', 'الأسد, بشار'),
  person('6', 'قلی زاده, ولی'),
])
const within = (text: string) => new Set(tokensWithinOneEdit(index, text).map((id) => index.tokens[id]))

describe('one-edit candidates (symmetric delete)', () => {
  it('finds the listed word one edit away, whichever letters the edit touches', () => {
    expect(within('igpr')).toContain('igor') // changed letter, inside the first and last three
    expect(within('erc')).toContain('eric') // a letter left out
    expect(within('trudst')).toContain('trust') // a letter added
    expect(within('rahcid')).toContain('rachid') // two letters swapped
    expect(within('kla')).toContain('kala')
  })

  it('offers candidates at most two edits away (the comparison then decides), never an Arabic-script word', () => {
    expect(within('igpr')).toEqual(new Set(['igor']))
    expect(within('shuvalovich')).not.toContain('shuvalov') // three letters more
    // بشار is indexed by its consonant skeleton instead; its transliteration is not a Latin word.
    const abjad = tokensWithinOneEdit(index, 'bashar').concat(tokensWithinOneEdit(index, 'bshar'))
    expect(index.tokenAbjad.some((flag) => flag === 1)).toBe(true)
    expect(abjad.filter((id) => index.tokenAbjad[id] === 1)).toEqual([])
  })

  it('indexes every reading of an Arabic-script word: article dropped, first waw as a consonant', () => {
    const readings = (skeleton: string) =>
      (index.bySkeleton.get(skeleton) ?? []).map((id) => index.tokens[id])
    expect(readings('lsd')).toContain('lsd') // الأسد as written
    expect(readings('sd')).toContain('lsd') // without the article ("Assad")
    expect(readings('wl')).toContain('wly') // ولی, "Vali"
    expect(readings('l')).toContain('wly') // and read as a vowel
  })

  it('keeps the readings of every Arabic-script word that folds to the same Latin letters', () => {
    // ذر (the given name Zer, OFAC SDN) and دهر both fold to "dhr"; the first one indexed must
    // not hide the other's skeleton.
    const both = buildFuzzyIndex([person('7', 'دهر, علی'), person('8', 'أحمد, أبو ذر')])
    const id = both.tokenIds.get('dhr')!
    expect(both.tokenSkeleton.get(id)).toEqual(expect.arrayContaining(['dhr', 'dr']))
    expect((both.bySkeleton.get('dr') ?? []).map((t) => both.tokens[t])).toContain('dhr')
  })

  it('one deletion of every letter, each once', () => {
    expect(oneDeletions('anna').sort()).toEqual(['ana', 'ann', 'nna'])
  })
})
