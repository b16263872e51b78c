import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mod97OfAlphanumeric } from './check-digits.ts'
import { ibanCountry, validateIban } from './iban.ts'

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
})
