import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  STDNUM_INVALID_VAT_NUMBERS,
  STDNUM_VALID_VAT_NUMBERS,
} from '../../test/support/reference-numbers/vat.ts'
import { cbeCheckDigits } from './cbe.ts'
import { iso7064Mod11_10CheckDigit, luhnCheckDigit } from './check-digits.ts'
import { splitVatNumber, VAT_RULES, validateVatNumber } from './vat.ts'

/** Independent BigInt MOD 97-10 over "NL" + number, letters A=10..Z=35 (the 2020 sole-proprietor form). */
function nlMod97(number: string): bigint {
  const expanded = [...`NL${number}`]
    .map((ch) => (/[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch))
    .join('')
  return BigInt(expanded) % 97n
}

/** Independent 11-proof: weights 9..2 and -1. */
function elevenProof(nine: string): boolean {
  const weights = [9, 8, 7, 6, 5, 4, 3, 2, -1]
  return [...nine].reduce((sum, d, i) => sum + Number(d) * (weights[i] ?? 0), 0) % 11 === 0
}

/**
 * One published valid number per VIES prefix (the NL example is the Belastingdienst's own; the
 * others are python-stdnum's module examples or widely used test numbers).
 */
const CHECKSUM_EXAMPLES: Record<string, string> = {
  AT: 'ATU13585627',
  BE: 'BE0202239951',
  BG: 'BG175074752',
  CY: 'CY10259033P',
  CZ: 'CZ25123891',
  DE: 'DE136695976',
  DK: 'DK13585628',
  EE: 'EE100931558',
  EL: 'EL094259216',
  ES: 'ESB58378431',
  FI: 'FI20774740',
  FR: 'FR40303265045',
  HR: 'HR33392005961',
  HU: 'HU12892312',
  IE: 'IE6433435F',
  IT: 'IT00743110157',
  LT: 'LT119511515',
  LU: 'LU15027442',
  LV: 'LV40003521600',
  MT: 'MT11679112',
  NL: 'NL004495445B01',
  PL: 'PL8567346215',
  PT: 'PT501964843',
  RO: 'RO18547290',
  SE: 'SE123456789701',
  SI: 'SI50223054',
  SK: 'SK2022749619',
  XI: 'XI980780684',
}

describe('validateVatNumber', () => {
  it('has a real example for every VIES prefix, and accepts it', () => {
    expect(Object.keys(CHECKSUM_EXAMPLES).sort()).toEqual(Object.keys(VAT_RULES).sort())
    for (const [prefix, example] of Object.entries(CHECKSUM_EXAMPLES)) {
      const result = validateVatNumber(example)
      expect(result.ok, example).toBe(true)
      if (result.ok) expect(result.value.prefix).toBe(prefix)
    }
  })

  it('refuses each example when its last character is changed to any other digit', () => {
    for (const example of Object.values(CHECKSUM_EXAMPLES)) {
      const last = example.at(-1)
      for (let d = 0; d <= 9; d++) {
        if (String(d) === last) continue
        const mutated = example.slice(0, -1) + d
        if (
          example.startsWith('NL') &&
          (elevenProof(mutated.slice(2, 11)) || nlMod97(mutated.slice(2)) === 1n)
        )
          continue
        expect(validateVatNumber(mutated).ok, mutated).toBe(false)
      }
    }
  })

  it('covers all 27 member states plus XI, each with a national check', () => {
    expect(Object.keys(VAT_RULES)).toHaveLength(28)
    for (const rule of Object.values(VAT_RULES)) expect(typeof rule.check).toBe('function')
  })

  it('accepts the Belastingdienst mod-97 example NL000099998B57, which fails the 11-proof', () => {
    expect(elevenProof('000099998')).toBe(false)
    expect(validateVatNumber('NL000099998B57').ok).toBe(true)
  })

  it('normalises spaces, dots, dashes and case, and splits prefix from number', () => {
    expect(validateVatNumber('nl 0044.95445-b01')).toEqual({
      ok: true,
      value: {
        vat_number: 'NL004495445B01',
        prefix: 'NL',
        number: '004495445B01',
        country: 'NL',
      },
    })
    expect(splitVatNumber('EL 094259216')).toEqual({ prefix: 'EL', number: '094259216' })
    expect(splitVatNumber('US123')).toBeNull()
  })

  it('maps EL to Greece and XI to the United Kingdom', () => {
    const el = validateVatNumber('EL094259216')
    expect(el.ok && el.value.country).toBe('GR')
    const xi = validateVatNumber('XI980780684')
    expect(xi.ok && xi.value.country).toBe('GB')
  })

  it('pads an old 9-digit Belgian number with its leading zero', () => {
    const result = validateVatNumber('BE202239951')
    expect(result.ok && result.value.vat_number).toBe('BE0202239951')
  })

  it('refuses a missing prefix, GR instead of EL, GB, and unknown prefixes', () => {
    const cases: Array<[string, RegExp]> = [
      ['004495445B01', /prefix/],
      ['GR094259216', /EL/],
      ['GB980780684', /XI/],
      ['US123456789', /unknown country prefix/],
      ['', /empty/],
    ]
    for (const [input, message] of cases) {
      const result = validateVatNumber(input)
      expect(result.ok, input).toBe(false)
      if (!result.ok) expect(result.message).toMatch(message)
    }
  })

  it('refuses numbers of the wrong shape for their country, naming the format', () => {
    const result = validateVatNumber('NL004495445')
    expect(result).toEqual({
      ok: false,
      message: 'must be NL followed by 9 digits, the letter B and 2 digits (NLxxxxxxxxxBxx)',
    })
    for (const input of [
      'ATU1358562',
      'BE2202239951',
      'DE036695976',
      'ESA1234567',
      'SE123456789702',
      'NL000000000B01',
      'NL004495445B00',
    ]) {
      expect(validateVatNumber(input).ok, input).toBe(false)
    }
  })
})

describe('VAT check digits (property tests)', () => {
  it('NL: every 9-digit number passing the 11-proof is valid with any B suffix; a changed digit is refused unless it passes mod 97', () => {
    const elevenProofNumber = fc
      .stringMatching(/^\d{8}$/)
      .map((eight) => {
        const sum = [...eight].reduce((s, d, i) => s + Number(d) * (9 - i), 0)
        return eight + String(sum % 11)
      })
      .filter((nine) => nine.length === 9 && !/^0+$/.test(nine))
    fc.assert(
      fc.property(
        elevenProofNumber,
        fc.integer({ min: 1, max: 99 }),
        fc.nat(8),
        fc.integer({ min: 1, max: 9 }),
        (nine, suffix, pos, delta) => {
          const number = `${nine}B${String(suffix).padStart(2, '0')}`
          expect(validateVatNumber(`NL${number}`).ok).toBe(true)
          const mutatedNine = nine.slice(0, pos) + ((Number(nine[pos]) + delta) % 10) + nine.slice(pos + 1)
          const mutated = `${mutatedNine}B${String(suffix).padStart(2, '0')}`
          fc.pre(nlMod97(mutated) !== 1n && !/^0+$/.test(mutatedNine))
          expect(validateVatNumber(`NL${mutated}`).ok).toBe(false)
        },
      ),
    )
  })

  it('NL: numbers completed for MOD 97-10 are valid; a changed digit is refused unless it passes the 11-proof', () => {
    const mod97Number = fc
      .stringMatching(/^\d{9}$/)
      .map((nine) => {
        const base = nlMod97(`${nine}B00`)
        const suffix = Number((98n - base) % 97n)
        return `${nine}B${String(suffix).padStart(2, '0')}`
      })
      .filter((n) => !n.endsWith('B00') && !n.startsWith('000000000'))
    fc.assert(
      fc.property(mod97Number, fc.nat(8), fc.integer({ min: 1, max: 9 }), (number, pos, delta) => {
        expect(nlMod97(number)).toBe(1n)
        expect(validateVatNumber(`NL${number}`).ok).toBe(true)
        const mutated = number.slice(0, pos) + ((Number(number[pos]) + delta) % 10) + number.slice(pos + 1)
        fc.pre(!elevenProof(mutated.slice(0, 9)))
        expect(validateVatNumber(`NL${mutated}`).ok).toBe(false)
      }),
    )
  })

  it('BE: enterprise numbers with mod-97 check digits are valid VAT numbers; a changed digit is refused', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('0', '1'),
        fc.stringMatching(/^\d{7}$/),
        fc.nat(9),
        fc.integer({ min: 1, max: 9 }),
        (first, rest, pos, delta) => {
          const number = first + rest + cbeCheckDigits(first + rest)
          expect(validateVatNumber(`BE${number}`).ok).toBe(true)
          const mutated = number.slice(0, pos) + ((Number(number[pos]) + delta) % 10) + number.slice(pos + 1)
          expect(validateVatNumber(`BE${mutated}`).ok).toBe(false)
        },
      ),
    )
  })

  it('DE: ISO 7064 MOD 11,10 numbers are valid; a changed digit is refused', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9]\d{7}$/),
        fc.nat(8),
        fc.integer({ min: 1, max: 9 }),
        (eight, pos, delta) => {
          const number = eight + iso7064Mod11_10CheckDigit(eight)
          expect(validateVatNumber(`DE${number}`).ok).toBe(true)
          fc.pre(!(pos === 0 && (Number(number[0]) + delta) % 10 === 0))
          const mutated = number.slice(0, pos) + ((Number(number[pos]) + delta) % 10) + number.slice(pos + 1)
          expect(validateVatNumber(`DE${mutated}`).ok).toBe(false)
        },
      ),
    )
  })

  it('IT: Luhn-completed numbers with a known tax office are valid; a changed digit is refused', () => {
    const office = fc.oneof(
      fc.integer({ min: 1, max: 100 }).map((n) => String(n).padStart(3, '0')),
      fc.constantFrom('120', '121', '888', '999'),
    )
    fc.assert(
      fc.property(
        fc
          .tuple(
            fc.stringMatching(/^\d{7}$/).filter((b) => !/^0+$/.test(b)),
            office,
          )
          .map(([company, code]) => company + code),
        fc.nat(10),
        fc.integer({ min: 1, max: 9 }),
        (ten, pos, delta) => {
          const number = ten + luhnCheckDigit(ten)
          expect(validateVatNumber(`IT${number}`).ok).toBe(true)
          const mutated = number.slice(0, pos) + ((Number(number[pos]) + delta) % 10) + number.slice(pos + 1)
          expect(validateVatNumber(`IT${mutated}`).ok).toBe(false)
        },
      ),
    )
  })
})

describe('VAT check digits are determined by the rest of the number (property tests, every single-scheme country)', () => {
  const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`))
  const nonZero = fc.constantFrom('1', '2', '3', '4', '5', '6', '7', '8', '9')
  const DIGITS = Array.from({ length: 10 }, (_, i) => String(i))
  const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'))
  const LETTERS = Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i))
  /** Italian tax office codes (digits 8-10) python-stdnum accepts. */
  const itOffice = fc.oneof(
    fc.integer({ min: 1, max: 100 }).map((n) => String(n).padStart(3, '0')),
    fc.constantFrom('120', '121', '888', '999'),
  )
  /** A SIREN: 8 digits and their Luhn digit. */
  const siren = digits(8).map((b) => b + luhnCheckDigit(b))
  /** How to build a number around a candidate check value, and which values exist. */
  type Template = {
    body: fc.Arbitrary<string>
    build: (body: string, check: string) => string
    candidates: readonly string[]
    exactlyOne: boolean
  }
  const templates: Record<string, Template> = {
    AT: { body: digits(7), build: (b, c) => `ATU${b}${c}`, candidates: DIGITS, exactlyOne: true },
    BG: { body: digits(8), build: (b, c) => `BG${b}${c}`, candidates: DIGITS, exactlyOne: true },
    CY: {
      body: digits(8).filter((b) => !b.startsWith('12')),
      build: (b, c) => `CY${b}${c}`,
      candidates: LETTERS,
      exactlyOne: true,
    },
    CZ: {
      body: fc
        .tuple(fc.constantFrom('1', '2', '3', '4', '5', '6', '7', '8'), digits(6))
        .map(([a, b]) => a + b),
      build: (b, c) => `CZ${b}${c}`,
      candidates: DIGITS,
      exactlyOne: true,
    },
    DE: {
      body: fc.tuple(nonZero, digits(7)).map(([a, b]) => a + b),
      build: (b, c) => `DE${b}${c}`,
      candidates: DIGITS,
      exactlyOne: true,
    },
    DK: {
      body: fc.tuple(nonZero, digits(6)).map(([a, b]) => a + b),
      build: (b, c) => `DK${b}${c}`,
      candidates: DIGITS,
      exactlyOne: false,
    },
    EE: { body: digits(6), build: (b, c) => `EE10${b}${c}`, candidates: DIGITS, exactlyOne: true },
    EL: { body: digits(8), build: (b, c) => `EL${b}${c}`, candidates: DIGITS, exactlyOne: true },
    ES: {
      body: fc.oneof(
        digits(8),
        fc.tuple(fc.constantFrom('X', 'Y', 'Z', 'K', 'L', 'M'), digits(7)).map(([a, b]) => a + b),
      ),
      build: (b, c) => `ES${b}${c}`,
      candidates: LETTERS,
      exactlyOne: true,
    },
    FI: { body: digits(7), build: (b, c) => `FI${b}${c}`, candidates: DIGITS, exactlyOne: false },
    FR: { body: siren, build: (b, c) => `FR${c}${b}`, candidates: TWO_DIGITS, exactlyOne: true },
    HR: { body: digits(10), build: (b, c) => `HR${b}${c}`, candidates: DIGITS, exactlyOne: true },
    HU: { body: digits(7), build: (b, c) => `HU${b}${c}`, candidates: DIGITS, exactlyOne: true },
    IE: {
      // 7 digits, then an optional second letter that goes after the check letter.
      body: fc.tuple(digits(7), fc.constantFrom('', 'W', 'A', 'B', 'H')).map(([b, second]) => b + second),
      build: (b, c) => `IE${b.slice(0, 7)}${c}${b.slice(7)}`,
      candidates: LETTERS.slice(0, 23),
      exactlyOne: true,
    },
    IT: {
      body: fc
        .tuple(
          digits(7).filter((b) => !/^0+$/.test(b)),
          itOffice,
        )
        .map(([a, b]) => a + b),
      build: (b, c) => `IT${b}${c}`,
      candidates: DIGITS,
      exactlyOne: true,
    },
    LT: {
      body: fc.oneof(
        digits(7).map((b) => `${b}1`),
        digits(10).map((b) => `${b}1`),
      ),
      build: (b, c) => `LT${b}${c}`,
      candidates: DIGITS,
      exactlyOne: true,
    },
    LU: { body: digits(6), build: (b, c) => `LU${b}${c}`, candidates: TWO_DIGITS, exactlyOne: true },
    LV: {
      body: fc.tuple(fc.constantFrom('4', '5', '6', '7', '8', '9'), digits(9)).map(([a, b]) => a + b),
      build: (b, c) => `LV${b}${c}`,
      candidates: DIGITS,
      exactlyOne: false,
    },
    MT: {
      body: fc.tuple(nonZero, digits(6)).map(([a, b]) => a + b),
      build: (b, c) => `MT${b}${c}`,
      candidates: DIGITS,
      exactlyOne: false,
    },
    PL: { body: digits(9), build: (b, c) => `PL${b}${c}`, candidates: DIGITS, exactlyOne: false },
    PT: {
      body: fc.tuple(nonZero, digits(7)).map(([a, b]) => a + b),
      build: (b, c) => `PT${b}${c}`,
      candidates: DIGITS,
      exactlyOne: true,
    },
    RO: {
      body: fc.tuple(nonZero, fc.integer({ min: 0, max: 8 })).chain(([a, n]) => digits(n).map((b) => a + b)),
      build: (b, c) => `RO${b}${c}`,
      candidates: DIGITS,
      exactlyOne: true,
    },
    SE: { body: digits(9), build: (b, c) => `SE${b}${c}01`, candidates: DIGITS, exactlyOne: true },
    SI: {
      body: fc.tuple(nonZero, digits(6)).map(([a, b]) => a + b),
      build: (b, c) => `SI${b}${c}`,
      candidates: DIGITS,
      exactlyOne: false,
    },
    // Legal-entity numbers whose digits 3-4 (33-39) cannot be a birth number's month.
    SK: {
      body: fc
        .tuple(nonZero, digits(1), fc.constantFrom('33', '34', '35', '36', '37', '38', '39'), digits(5))
        .map((parts) => parts.join('')),
      build: (b, c) => `SK${b}${c}`,
      candidates: DIGITS,
      exactlyOne: false,
    },
    XI: { body: digits(8), build: (b, c) => `XI${b}${c}`, candidates: DIGITS, exactlyOne: false },
  }

  it('has a template for every single-scheme country (NL and BE have their own properties above)', () => {
    expect(Object.keys(templates).sort()).toEqual(
      Object.keys(VAT_RULES)
        .filter((p) => p !== 'NL' && p !== 'BE')
        .sort(),
    )
  })

  for (const [prefix, template] of Object.entries(templates)) {
    it(`${prefix}: ${template.exactlyOne ? 'exactly one' : 'at most one'} check value completes a random number`, () => {
      fc.assert(
        fc.property(template.body, (body) => {
          const passing = template.candidates.filter(
            (check) => validateVatNumber(template.build(body, check)).ok,
          )
          if (template.exactlyOne) expect(passing).toHaveLength(1)
          else expect(passing.length).toBeLessThanOrEqual(1)
        }),
        { numRuns: 50 },
      )
    })
  }
})

describe('VAT numbers agree with python-stdnum, the reference implementation', () => {
  it('has published valid numbers for every prefix but HR (whose example is above)', () => {
    expect(Object.keys(STDNUM_VALID_VAT_NUMBERS).sort()).toEqual(
      Object.keys(VAT_RULES)
        .filter((p) => p !== 'HR')
        .sort(),
    )
  })

  for (const [prefix, numbers] of Object.entries(STDNUM_VALID_VAT_NUMBERS)) {
    it(`${prefix}: accepts the ${numbers.length} numbers python-stdnum publishes as valid`, () => {
      const refused = numbers.filter((n) => !validateVatNumber(n).ok)
      expect(refused).toEqual([])
    })
  }

  for (const [prefix, numbers] of Object.entries(STDNUM_INVALID_VAT_NUMBERS)) {
    it(`${prefix}: refuses the ${numbers.length} numbers python-stdnum publishes as invalid`, () => {
      const accepted = numbers.filter((n) => validateVatNumber(n).ok)
      expect(accepted).toEqual([])
    })
  }

  it('refuses a published number with a wrong check digit with a 422-ready message naming the problem', () => {
    expect(validateVatNumber('BG175074751')).toEqual({
      ok: false,
      message: 'has check digits that do not match (BG VAT number)',
    })
    expect(validateVatNumber('CY10259033A')).toEqual({
      ok: false,
      message: 'has check digits that do not match (CY VAT number)',
    })
    expect(validateVatNumber('ES54362315Z')).toEqual({
      ok: false,
      message: 'has check digits that do not match (ES VAT number)',
    })
  })

  it('BG: accepts legal entities, the fallback weights, EGN, PNF and "other" 10-digit numbers', () => {
    for (const n of [
      '103873594',
      '131272009',
      '7501020018',
      '8001010008',
      '8032056031',
      '7111042925',
      '7153849522',
    ])
      expect(validateVatNumber(`BG${n}`).ok, n).toBe(true)
    expect(validateVatNumber('BG175074751').ok).toBe(false)
  })

  it('CY: refuses numbers starting with 12', () => {
    const result = validateVatNumber('CY12259033P')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toMatch(/must not start with 12/)
  })

  it('CZ: legal entities, the special 6xx form and birth numbers (with their birth date)', () => {
    for (const n of ['25123891', '640903926', '7103192745', '530101123'])
      expect(validateVatNumber(`CZ${n}`).ok, n).toBe(true)
    const nineDigitAfter1953 = validateVatNumber('CZ710319274')
    expect(nineDigitAfter1953.ok).toBe(false)
    if (!nineDigitAfter1953.ok) expect(nineDigitAfter1953.message).toMatch(/only issued until 1953/)
    const badDate = validateVatNumber('CZ7113192745')
    expect(badDate.ok).toBe(false)
    if (!badDate.ok) expect(badDate.message).toMatch(/birth date/)
    const nine = validateVatNumber('CZ95123891')
    expect(nine.ok).toBe(false)
    if (!nine.ok) expect(nine.message).toMatch(/must not start with 9/)
  })

  it('ES: DNI, NIE, K/L/M and CIF with a digit or a letter control', () => {
    for (const n of ['54362315K', 'X5253868R', 'M1234567L', 'B58378431', 'B64717838', 'A11111119'])
      expect(validateVatNumber(`ES${n}`).ok, n).toBe(true)
    for (const n of ['54362315Z', 'X5253868A', 'M1234567C', 'A11111118'])
      expect(validateVatNumber(`ES${n}`).ok, n).toBe(false)
    const unknownType = validateVatNumber('ESI1234567A')
    expect(unknownType.ok).toBe(false)
    if (!unknownType.ok) expect(unknownType.message).toMatch(/entity type letter I/)
  })

  it('FR: numeric and alphanumeric keys, the SIREN Luhn check and Monaco numbers', () => {
    for (const n of ['40303265045', '23334175221', 'K7399859412', '4Z123456782', '53000004605'])
      expect(validateVatNumber(`FR${n}`).ok, n).toBe(true)
    for (const n of ['84323140391', 'K7399859312', 'L7399859412'])
      expect(validateVatNumber(`FR${n}`).ok, n).toBe(false)
    const badSiren = validateVatNumber('FR40303265046')
    expect(badSiren.ok).toBe(false)
    if (!badSiren.ok) expect(badSiren.message).toMatch(/SIREN/)
  })

  it('IE: the new form with and without a second letter, and the old form with a letter in position 2', () => {
    for (const n of ['6433435F', '6433435OA', '8D79739I', '0797398I'])
      expect(validateVatNumber(`IE${n}`).ok, n).toBe(true)
    for (const n of ['6433435E', '6433435OB', '8D79729I'])
      expect(validateVatNumber(`IE${n}`).ok, n).toBe(false)
  })

  it('LT: 9 and 12 digits, with the fixed 1 before the check digit', () => {
    expect(validateVatNumber('LT119511515').ok).toBe(true)
    expect(validateVatNumber('LT100001919017').ok).toBe(true)
    expect(validateVatNumber('LT100001919018').ok).toBe(false)
    const component = validateVatNumber('LT100001354')
    expect(component.ok).toBe(false)
    if (!component.ok) expect(component.message).toMatch(/digit 1 in position 8/)
  })

  it('LV: legal entities by mod 11, persons by birth date and check digit, and the 32 personal codes', () => {
    expect(validateVatNumber('LV40003521600').ok).toBe(true)
    expect(validateVatNumber('LV40003521601').ok).toBe(false)
    expect(validateVatNumber('LV16117519997').ok).toBe(true)
    const badDate = validateVatNumber('LV31137519997')
    expect(badDate.ok).toBe(false)
    if (!badDate.ok) expect(badDate.message).toMatch(/birth date/)
    expect(validateVatNumber('LV32867300679').ok).toBe(true)
    expect(validateVatNumber('LV32867300678').ok).toBe(false)
  })

  it('RO: 2-10 digit CUI and the 13-digit personal code (CNP) with key 279146358279 and a real birth date', () => {
    expect(validateVatNumber('RO18547290').ok).toBe(true)
    expect(validateVatNumber('RO1630615123457').ok).toBe(true)
    expect(validateVatNumber('RO1630615123458').ok).toBe(false)
    const badDate = validateVatNumber('RO1630231123450')
    expect(badDate.ok).toBe(false)
    if (!badDate.ok) expect(badDate.message).toMatch(/birth date/)
    const badCounty = validateVatNumber('RO1630615493452')
    expect(badCounty.ok).toBe(false)
    if (!badCounty.ok) expect(badCounty.message).toMatch(/county code 49/)
    expect(validateVatNumber('RO0630615123457').ok).toBe(false)
    expect(validateVatNumber('RO16306151234').ok).toBe(false)
  })

  it('XI: 9 and 12 digits with the mod-97 check (0, or 42 and 55 from 100 upwards), GD and HA numbers', () => {
    for (const n of [
      '980780684',
      '980780684001',
      '100000034',
      '100000047',
      'GD001',
      'GD499',
      'HA500',
      'HA999',
      'GD888812326',
    ])
      expect(validateVatNumber(`XI${n}`).ok, n).toBe(true)
    for (const n of ['980780683', '010000035', 'GD500', 'HA499', 'GD888812327', 'HA888812326', 'GD12'])
      expect(validateVatNumber(`XI${n}`).ok, n).toBe(false)
  })

  it('writes old short forms with their leading zeros (EL 8 digits, NL fewer than 9 before the B)', () => {
    const el = validateVatNumber('EL94051189')
    expect(el.ok && el.value.vat_number).toBe('EL094051189')
    const nl = validateVatNumber('NL4495445B01')
    expect(nl.ok && nl.value.vat_number).toBe('NL004495445B01')
  })
})
