import { composeIBAN, isValidBIC } from 'ibantools'
import { describe, expect, it } from 'vitest'
import { BE_BANK_TABLE } from './bank-codes-be.ts'
import { NL_BANK_TABLE } from './bank-codes-nl.ts'
import { bankTables, lookupBank } from './bank-lookup.ts'
import type { BankTable } from './bank-table.ts'

/** Builds a structurally valid IBAN for a bank code (check digits computed by ibantools). */
function ibanFor(country: 'NL' | 'BE', bankCode: string): string {
  let bban = `${bankCode}0123456789`
  if (country === 'BE') {
    const firstTen = `${bankCode}0000000`
    const remainder = Number(firstTen) % 97 // Belgian account check: first 10 digits mod 97, 0 -> 97
    bban = firstTen + String(remainder === 0 ? 97 : remainder).padStart(2, '0')
  }
  const iban = composeIBAN({ countryCode: country, bban })
  if (iban === null) throw new Error(`cannot compose IBAN for ${country} ${bankCode}`)
  return iban
}

describe('lookupBank', () => {
  it('names the bank of the canonical Dutch example NL91ABNA0417164300', () => {
    expect(lookupBank('NL91ABNA0417164300')).toEqual({
      country: 'NL',
      bank_code: 'ABNA',
      bank_name: 'ABN AMRO BANK N.V.',
      bic: 'ABNANL2A',
      as_of: NL_BANK_TABLE.as_of,
      source: NL_BANK_TABLE.source,
    })
  })

  it('finds the large Dutch banks by their IBAN bank code', () => {
    const expected: Record<string, string> = {
      INGB: 'INGBNL2A',
      RABO: 'RABONL2U',
      SNSB: 'SNSBNL2A',
      ASNB: 'ASNBNL21',
      RBRB: 'RBRBNL21',
      KNAB: 'KNABNL2H',
      BUNQ: 'BUNQNL2A',
      TRIO: 'TRIONL2U',
      FVLB: 'FVLBNL22',
    }
    for (const [code, bic] of Object.entries(expected)) {
      const result = lookupBank(ibanFor('NL', code))
      expect(result?.bank_code, code).toBe(code)
      expect(result?.bic, code).toBe(bic)
    }
  })

  it('finds Belgian banks by the 3-digit code, inside ranges and at their edges', () => {
    const expected: Array<[string, string]> = [
      ['000', 'GEBABEBB'],
      ['049', 'GEBABEBB'],
      ['050', 'GKCCBEBB'],
      ['310', 'BBRUBEBB'],
      ['455', 'KREDBEBB'],
      ['735', 'KREDBEBB'],
      ['732', 'CREGBEBB'],
      ['973', 'ARSPBE22'],
      ['650', 'REVOBEB2XXX'],
    ]
    for (const [code, bic] of expected) {
      const result = lookupBank(ibanFor('BE', code))
      expect(result?.country, code).toBe('BE')
      expect(result?.bank_code, code).toBe(code)
      expect(result?.bic, code).toBe(bic)
    }
  })

  it('returns a named institution without BIC where the NBB list gives none', () => {
    const result = lookupBank(ibanFor('BE', '102'))
    expect(result?.bank_name).toMatch(/Uitwisselingscentrum/)
    expect(result && 'bic' in result).toBe(false)
  })

  it('returns null for unallocated codes, such as the fictitious BE68539007547034', () => {
    expect(lookupBank('BE68539007547034')).toBeNull()
    expect(lookupBank(ibanFor('BE', '999'))).toBeNull()
    expect(lookupBank(ibanFor('NL', 'ZZZZ'))).toBeNull()
  })

  it('returns null for invalid IBANs and other countries', () => {
    expect(lookupBank('NL92ABNA0417164300')).toBeNull()
    expect(lookupBank('NL91 ABNA 0417 1643 00')).toBeNull()
    expect(lookupBank('DE89370400440532013000')).toBeNull()
  })
})

describe.each<[string, BankTable]>([
  ['NL', NL_BANK_TABLE],
  ['BE', BE_BANK_TABLE],
])('%s bank table', (country, table) => {
  it('is dated and sourced', () => {
    expect(table.country).toBe(country)
    expect(table.as_of).toMatch(/^\d{4}-\d{2}(-\d{2})?$/)
    expect(table.source_url).toMatch(/^https:\/\//)
    expect(table.as_of_note.length).toBeGreaterThan(20)
    expect(bankTables()).toContain(table)
  })

  it('has well-formed codes, valid BICs of the right country and no free/unavailable placeholders', () => {
    for (const entry of table.entries) {
      expect(entry.code, entry.name).toMatch(country === 'NL' ? /^[A-Z]{4}$/ : /^\d{3}$/)
      if (entry.to !== undefined) expect(entry.to > entry.code, entry.code).toBe(true)
      if (entry.bic !== undefined) {
        expect(isValidBIC(entry.bic), entry.bic).toBe(true)
        expect(entry.bic.slice(4, 6), entry.bic).toBe(country)
      }
      expect(entry.name.trim()).toBe(entry.name)
      expect(entry.name).not.toMatch(/^(VRIJ|LIBRE|Onbeschikbaar|Indisponible|NAV|NAP|-)$/i)
    }
  })

  it('has codes in order, without overlap', () => {
    for (let i = 1; i < table.entries.length; i++) {
      const previous = table.entries[i - 1]
      const current = table.entries[i]
      if (previous === undefined || current === undefined) continue
      expect((previous.to ?? previous.code) < current.code, current.code).toBe(true)
    }
  })
})

describe('NL bank table', () => {
  it('uses the bank code as the first four letters of its BIC', () => {
    for (const entry of NL_BANK_TABLE.entries) expect(entry.bic?.slice(0, 4), entry.code).toBe(entry.code)
  })
})
