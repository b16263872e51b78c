import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseEuXml } from './eu-parser.ts'
import { packEntries, unpackEntries } from './list-store.ts'
import { shareRepeatedValues } from './shared-values.ts'
import type { SanctionsEntry } from './types.ts'
import { parseUnXml } from './un-parser.ts'

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures')

describe('shareRepeatedValues', () => {
  it('changes no value of parsed entries or of entries read back from their stored form', async () => {
    const un = await parseUnXml(readFileSync(path.join(fixtures, 'un-handmade.xml')))
    const eu = await parseEuXml(readFileSync(path.join(fixtures, 'eu-fsf-handmade.xml')))
    for (const entries of [un.entries, eu.entries, await unpackEntries(await packEntries(un.entries))]) {
      const before = structuredClone(entries)
      shareRepeatedValues(entries)
      expect(entries).toEqual(before)
      // Fields absent before are still absent (no `undefined` keys appear).
      expect(JSON.stringify(entries)).toBe(JSON.stringify(before))
    }
  })

  it('keeps every field of an entry that has them all, and leaves absent ones absent', () => {
    const full: SanctionsEntry = {
      list: 'ofac_sdn',
      entry_id: '1',
      entry_type: 'person',
      name: 'Doe, John',
      aliases: [{ name: 'Johnny Doe', kind: 'aka', quality: 'strong' }, { name: 'J. Doe' }],
      programmes: ['SDGT', 'SDGT'],
      countries: ['RU'],
      listed_on: '2020-01-01',
      identifiers: [
        { type: 'crypto_address', value: '0xabc', currency: 'ETH' },
        { type: 'passport', value: 'P1', country: 'RU', label: 'Passport' },
      ],
      birth_dates: ['1970'],
      nationalities: ['RU'],
      reference: 'QDi.1',
    }
    const bare: SanctionsEntry = { ...full, entry_id: '2', aliases: [], identifiers: [], listed_on: null }
    delete bare.birth_dates
    delete bare.nationalities
    delete bare.reference
    const entries = [full, bare]
    const before = JSON.stringify(entries)
    shareRepeatedValues(entries)
    expect(JSON.stringify(entries)).toBe(before)
  })
})
