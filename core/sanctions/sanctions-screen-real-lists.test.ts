import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { parsedSharedList } from '../../test/support/sanctions/parsed-lists.ts'
import {
  BIG_LIST_HOOK_TIMEOUT_MS,
  EU_LEGACY_FILE,
  OFAC_ADVANCED,
  type RawRecord,
  rawEuLegacyEntities,
  rawOfacParties,
  rawUnRecords,
  readBz2,
  readShared,
  sanctionsDataPath,
  spreadSample,
  UN_FILES,
} from '../../test/support/sanctions/shared-data.ts'
import { parseEuXml } from './eu-parser.ts'
import { normaliseName } from './name-normaliser.ts'
import {
  buildSanctionsIndex,
  buildSanctionsIndexFromEntries,
  type SanctionsIndex,
} from './sanctions-index.ts'
import { screenAddress, screenName } from './sanctions-screen.ts'
import type { ListKey } from './types.ts'
import { parseUnXml } from './un-parser.ts'

/**
 * The done-when on real data: one index over OFAC SDN (advanced XML 2025-11-19), the
 * legacy EU file and the UN list (2026-02-27). Names, ids and addresses are read from the raw
 * files by regex (test/support/sanctions/shared-data.ts), independently of the parsers.
 */

let index: SanctionsIndex
const samples: Record<ListKey, RawRecord[]> = { ofac_sdn: [], eu: [], un: [] }
const NO_CAP = { limit: 100_000 }

beforeAll(async () => {
  const ofacXml = await readBz2(OFAC_ADVANCED['2025-11-19'])
  const euXml = readShared(EU_LEGACY_FILE)
  const unXml = readShared(UN_FILES['2026-02-27'])
  // OFAC parsed by parseOfacAdvancedXml once per machine and parser version (parsedSharedList).
  const lists = [
    await parsedSharedList(OFAC_ADVANCED['2025-11-19']),
    await parseEuXml(euXml),
    await parseUnXml(unXml),
  ]
  index = buildSanctionsIndex(lists)
  samples.ofac_sdn = spreadSample(rawOfacParties(ofacXml.toString('utf8')), 200)
  samples.eu = spreadSample(rawEuLegacyEntities(euXml.toString('utf8')), 200)
  samples.un = spreadSample(rawUnRecords(unXml.toString('utf8')), 200)
}, BIG_LIST_HOOK_TIMEOUT_MS)

function found(name: string, list: ListKey, id: string) {
  return screenName(index, name, NO_CAP).matches.find(
    (match) => match.list_key === list && match.entry_id === id,
  )
}

/** Swaps word order: first word last. */
function reorder(name: string): string {
  const words = name.split(/\s+/).filter(Boolean)
  return [...words.slice(1), words[0]].join(' ')
}

/** Changes one Latin letter in the middle of the longest word to another letter. */
function mutate(name: string): string | null {
  const words = name.split(/(\s+)/)
  let longest = -1
  for (const [i, word] of words.entries()) {
    if (/^[A-Za-z]{4,}$/.test(word) && (longest < 0 || word.length > words[longest]!.length)) longest = i
  }
  if (longest < 0) return null
  const word = words[longest]!
  const middle = Math.floor(word.length / 2)
  const replacement = word[middle]!.toLowerCase() === 'x' ? 'q' : 'x'
  words[longest] = word.slice(0, middle) + replacement + word.slice(middle + 1)
  return words.join('')
}

describe.each([
  ['ofac_sdn', 'OFAC SDN'],
  ['eu', 'EU (legacy file)'],
  ['un', 'UN'],
] as const)('screening the real %s list (%s)', (list, _title) => {
  it('finds every primary name and alias of 200 sampled entries with the right list and entry_id', () => {
    expect(samples[list]).toHaveLength(200)
    let names = 0
    for (const record of samples[list]) {
      expect(record.names.length, record.id).toBeGreaterThan(0)
      for (const name of record.names) {
        names++
        const match = found(name, list, record.id)
        expect(match, `${list} ${record.id}: ${name}`).toBeDefined()
        expect(['name_exact', 'name_tokens']).toContain(match!.match_type)
      }
    }
    expect(names).toBeGreaterThan(200)
  })

  it('matches the sampled names with their words reordered as name_tokens', () => {
    let reordered = 0
    for (const record of samples[list]) {
      const name = record.names.find((candidate) => candidate.split(/\s+/).filter(Boolean).length >= 2)
      if (!name) continue
      const shuffled = reorder(name)
      const match = found(shuffled, list, record.id)
      expect(match, `${list} ${record.id}: ${shuffled}`).toBeDefined()
      // The raw names are in document order, the parsed ones "Surname, Given": a reordered raw
      // name can be exactly a listed name, which must then match exactly.
      const entry = index.entries.find(
        (candidate) => candidate.list === list && candidate.entry_id === record.id,
      )!
      const listedNames = [entry.name, ...entry.aliases.map((alias) => alias.name)]
      const writtenAsIs = listedNames.some(
        (candidate) => normaliseName(candidate) === normaliseName(shuffled),
      )
      if (!writtenAsIs) {
        expect(match!.match_type, `${record.id}: ${shuffled}`).toBe('name_tokens')
        reordered++
      }
    }
    expect(reordered).toBeGreaterThan(100)
  })

  it('does not match the sampled entries when one letter of a name is changed', () => {
    let mutated = 0
    for (const record of samples[list]) {
      for (const name of record.names) {
        const changed = mutate(name)
        if (!changed) continue
        mutated++
        expect(found(changed, list, record.id), `${list} ${record.id}: ${changed}`).toBeUndefined()
      }
    }
    expect(mutated).toBeGreaterThan(150)
  })
})

describe('non-Latin names on the real lists', () => {
  it('match themselves exactly and not with one letter changed', () => {
    const nonLatin = (name: string) => /[\u0600-\u06FF\u0400-\u04FF]/.test(name)
    const originals = (['un', 'ofac_sdn'] as const).flatMap((list) =>
      samples[list].flatMap((record) =>
        record.names.filter(nonLatin).map((name) => ({ list, record, name })),
      ),
    )
    expect(originals.length).toBeGreaterThan(20)
    for (const { list, record, name } of originals) {
      expect(found(name, list, record.id), name).toBeDefined()
      const letters = [...name]
      const positions = letters.flatMap((char, i) => (nonLatin(char) ? [i] : []))
      const at = positions[Math.floor(positions.length / 2)]!
      const cyrillic = /[\u0400-\u04FF]/.test(letters[at]!)
      letters[at] = cyrillic ? (letters[at] === 'ж' ? 'щ' : 'ж') : letters[at] === 'ض' ? 'ظ' : 'ض'
      expect(found(letters.join(''), list, record.id), letters.join('')).toBeUndefined()
    }
  })
})

describe('real OFAC digital currency addresses', () => {
  const readmeEth = [
    ['0x098B716B8Aaf21512996dC57EB0615e2383E2f96', '27307', 'Lazarus Group'],
    ['0xdcbEfFBECcE100cCE9E4b153C4e15cB885643193', '44718', 'Semenov, Roman'],
    ['0x7FF9cFad3877F21d41Da833E2F775dB0569eE3D9', '36025', 'GARANTEX EUROPE OU'],
    ['0x2f389ce8bd8ff92de3402ffce4691d17fc4f6535', '33151', 'SUEX OTC, S.R.O.'],
    ['0x97b1043abd9e6fc31681635166d430a458d14f9c', '43377', 'Kim, Sang Man'],
  ] as const

  it('finds the README ETH cases in any letter case with the right entry', () => {
    for (const [address, id, name] of readmeEth) {
      for (const form of [address, address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`]) {
        const { matches } = screenAddress(index, form)
        expect(
          matches.map((match) => match.entry_id),
          form,
        ).toEqual([id])
        expect(matches[0]).toMatchObject({
          list_key: 'ofac_sdn',
          matched_name: name,
          match_type: 'crypto_address',
        })
      }
    }
  })

  it('finds every address of the derived ETH list (77) in lower, upper and listed case', () => {
    const eth = readFileSync(
      sanctionsDataPath('ofac/dca_lists_derived/2025-11-19/sanctioned_addresses_ETH.txt'),
      'utf8',
    )
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
    expect(eth).toHaveLength(77)
    for (const address of eth) {
      for (const form of [address, address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`]) {
        const { matches } = screenAddress(index, form)
        expect(matches.length, form).toBeGreaterThan(0)
        expect(matches.every((match) => match.list_key === 'ofac_sdn')).toBe(true)
      }
    }
  })

  it('reports every currency a shared address is listed under', () => {
    const { matches } = screenAddress(index, '0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c')
    expect(matches).toHaveLength(1)
    expect(new Set(matches[0]!.basis.currencies)).toEqual(new Set(['ETH', 'ARB', 'BSC']))
  })

  it('matches base58 addresses only in their listed case', () => {
    const xbt = readFileSync(
      sanctionsDataPath('ofac/dca_lists_derived/2025-11-19/sanctioned_addresses_XBT.txt'),
      'utf8',
    )
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('bc1'))
    expect(xbt.length).toBeGreaterThan(300)
    for (const address of xbt) {
      expect(screenAddress(index, address).matches.length, address).toBeGreaterThan(0)
      expect(screenAddress(index, address.toLowerCase()).matches, address).toEqual([])
    }
    expect(screenAddress(index, 'TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq').matches[0]!.entry_id).toBe('45404')
    expect(screenAddress(index, 'rnXyVQzgxZe7TR1EPzTkGj2jxH4LMJYh66').matches[0]!.entry_id).toBe('33854')
  })

  it('does not find the delisted Tornado Cash address', () => {
    expect(screenAddress(index, '0x12D66f87A04A9E220743712cE6d9bB1B5616B8Fc').matches).toEqual([])
  })
})

describe('the combined real index', () => {
  it('orders matches of the given country first without dropping any', () => {
    const plain = screenName(index, 'Saddam Hussein Al-Tikriti')
    const iraq = screenName(index, 'Saddam Hussein Al-Tikriti', { country: 'IQ' })
    expect(new Set(iraq.matches.map((match) => match.entry_id))).toEqual(
      new Set(plain.matches.map((match) => match.entry_id)),
    )
    expect(new Set(iraq.matches.map((match) => match.list_key))).toEqual(new Set(['ofac_sdn', 'eu', 'un']))
    const firstOther = iraq.matches.findIndex((match) => !match.countries.includes('IQ'))
    expect(iraq.matches.slice(firstOther).every((match) => !match.countries.includes('IQ'))).toBe(true)
  })

  it('gives the same answers after a JSON round trip of the entries', () => {
    const rebuilt = buildSanctionsIndexFromEntries(JSON.parse(JSON.stringify(index.entries)), index.lists)
    for (const record of [
      ...samples.ofac_sdn.slice(0, 40),
      ...samples.eu.slice(0, 30),
      ...samples.un.slice(0, 30),
    ]) {
      const name = record.names[0]!
      expect(screenName(rebuilt, name)).toEqual(screenName(index, name))
    }
    expect(rebuilt.lists.map((list) => [list.list_key, list.publication_date, list.entry_count])).toEqual([
      ['ofac_sdn', '2025-11-19', 18367],
      ['eu', '2016-02-11', 595],
      ['un', '2026-02-27', 1003],
    ])
  })
})
