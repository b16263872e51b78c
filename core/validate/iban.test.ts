import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { IBAN_REGISTRY_EXAMPLES, IBAN_TERRITORY_EXAMPLES } from '../../test/support/reference-numbers/iban.ts'
import { mod97OfAlphanumeric } from './check-digits.ts'
import { ibanCountry, validateIban } from './iban.ts'
import { IBAN_REGISTRY, IBAN_TERRITORIES } from './iban-registry.ts'

/** A Dutch IBAN built from a random bank code and account number with correct check digits. */
const validNlIban = fc
  .tuple(fc.stringMatching(/^[A-Z]{4}$/), fc.stringMatching(/^\d{10}$/))
  .map(([bank, account]) => {
    const bban = bank + account
    const check = String(98 - mod97OfAlphanumeric(`${bban}NL00`)).padStart(2, '0')
    return `NL${check}${bban}`
  })

describe('validateIban', () => {
  it('accepts the canonical Dutch, Belgian, German and British examples', () => {
    for (const iban of [
      'NL91ABNA0417164300',
      'BE68539007547034',
      'DE89370400440532013000',
      'GB29NWBK60161331926819',
    ]) {
      const result = validateIban(iban)
      expect(result.ok).toBe(true)
    }
  })

  it('splits country, check digits and BBAN', () => {
    expect(validateIban('NL91ABNA0417164300')).toEqual({
      ok: true,
      value: { iban: 'NL91ABNA0417164300', country: 'NL', check_digits: '91', bban: 'ABNA0417164300' },
    })
  })

  it('uppercases lowercase input instead of refusing it', () => {
    const result = validateIban('nl91abna0417164300')
    expect(result.ok && result.value.iban).toBe('NL91ABNA0417164300')
  })

  it('refuses the printed form with spaces, as the spec requires', () => {
    const result = validateIban('NL91 ABNA 0417 1643 00')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toMatch(/without spaces/)
  })

  it('refuses wrong check digits, wrong length, unknown country and bad BBAN format', () => {
    const cases: Array<[string, RegExp]> = [
      ['NL92ABNA0417164300', /check digits/],
      ['NL91ABNA041716430', /length/],
      ['XX91ABNA0417164300', /country/],
      ['NL911BNA0417164300', /format/],
      ['BE68539007547035', /national account check digit|check digits/],
      ['NL91-ABNA-0417', /letters and digits/],
      ['91ABNA0417164300', /country code/],
    ]
    for (const [input, message] of cases) {
      const result = validateIban(input)
      expect(result.ok, input).toBe(false)
      if (!result.ok) expect(result.message, input).toMatch(message)
    }
  })

  it('reports the country of a valid IBAN and null for an invalid one', () => {
    expect(ibanCountry('BE68539007547034')).toBe('BE')
    expect(ibanCountry('BE68539007547035')).toBeNull()
  })

  it('accepts every NL IBAN built with correct mod-97 check digits', () => {
    fc.assert(fc.property(validNlIban, (iban) => validateIban(iban).ok))
  })

  it('refuses any single-digit change in the account number', () => {
    fc.assert(
      fc.property(
        validNlIban,
        fc.integer({ min: 8, max: 17 }),
        fc.integer({ min: 1, max: 9 }),
        (iban, position, delta) => {
          const digit = (Number(iban[position]) + delta) % 10
          const mutated = iban.slice(0, position) + digit + iban.slice(position + 1)
          expect(validateIban(mutated).ok).toBe(false)
        },
      ),
    )
  })

  it('accepts the SWIFT registry example of every registry country', () => {
    expect(Object.keys(IBAN_REGISTRY_EXAMPLES).sort()).toEqual(Object.keys(IBAN_REGISTRY).sort())
    const refused = Object.values(IBAN_REGISTRY_EXAMPLES).filter((iban) => !validateIban(iban).ok)
    expect(refused).toEqual([])
  })

  it('refuses each registry example with one character of its BBAN changed (mod 97 catches it)', () => {
    for (const iban of Object.values(IBAN_REGISTRY_EXAMPLES)) {
      const last = iban.at(-1) ?? '0'
      const changed =
        iban.slice(0, -1) + (/\d/.test(last) ? String((Number(last) + 1) % 10) : last === 'A' ? 'B' : 'A')
      expect(validateIban(changed).ok, changed).toBe(false)
    }
  })

  it('follows the current registry: lengths and structures python-stdnum lists, including newer countries', () => {
    // Registry entries added in recent releases.
    for (const iban of ['FK88SC123456789012', 'OM810180000001299123456', 'YE15CBYE0001018861234567891234'])
      expect(validateIban(iban).ok, iban).toBe(true)
    const short = validateIban('FK88SC12345678901')
    expect(short).toEqual({
      ok: false,
      message: 'has the wrong length for its country: FK IBANs have 18 characters, this one has 17',
    })
    const structure = validateIban('FK8812123456789012')
    expect(structure.ok).toBe(false)
    if (!structure.ok) expect(structure.message).toMatch(/FK: 2!a12!n/)
  })

  it('refuses territory codes whose accounts use the French or Finnish IBAN, saying which to use', () => {
    expect(Object.keys(IBAN_TERRITORY_EXAMPLES).sort()).toEqual(Object.keys(IBAN_TERRITORIES).sort())
    for (const code of ['AX', 'BL', 'GF', 'GP', 'MQ', 'RE', 'PM', 'TF', 'YT', 'NC', 'PF', 'WF', 'MF'])
      expect(IBAN_TERRITORIES[code], code).toBeDefined()
    for (const [code, iban] of Object.entries(IBAN_TERRITORY_EXAMPLES)) {
      const result = validateIban(iban)
      expect(result.ok, iban).toBe(false)
      if (!result.ok)
        expect(result.message).toMatch(code === 'AX' ? /Finnish IBAN, use FI…/ : /French IBAN, use FR…/)
    }
    expect(validateIban('RE4220041010050500013M02606')).toEqual({
      ok: false,
      message:
        'has the country code RE (Réunion), which issues no IBANs of its own: accounts there have a French IBAN, use FR…',
    })
    // The same account written with the parent's code is valid.
    expect(validateIban('FR1420041010050500013M02606').ok).toBe(true)
    expect(validateIban('FI2112345600000785').ok).toBe(true)
  })

  it('refuses codes outside the registry, naming the registry', () => {
    const result = validateIban('US64SVBKUS6S3300958879')
    expect(result).toEqual({
      ok: false,
      message: 'has the country code US, which does not use IBANs (not in the SWIFT IBAN registry)',
    })
  })
})
