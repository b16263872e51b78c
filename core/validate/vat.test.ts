import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cbeCheckDigits } from './cbe.ts'
import { iso7064Mod11_10CheckDigit, luhnCheckDigit } from './check-digits.ts'
import {
  splitVatNumber,
  VAT_CHECKSUM_PREFIXES,
  VAT_FORMAT_ONLY_PREFIXES,
  VAT_RULES,
  validateVatNumber,
} from './vat.ts'

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
 * Published or documented-valid numbers for every country with a verified check digit
 * (the NL example NL000099998B57 is the Belastingdienst's own; others are widely used test
 * numbers that pass the official algorithms).
 */
const CHECKSUM_EXAMPLES: Record<string, string> = {
  AT: 'ATU13585627',
  BE: 'BE0202239951',
  DE: 'DE136695976',
  DK: 'DK13585628',
  EE: 'EE100931558',
  EL: 'EL094259216',
  FI: 'FI20774740',
  FR: 'FR40303265045',
  HR: 'HR33392005961',
  HU: 'HU12892312',
  IT: 'IT00743110157',
  LU: 'LU15027442',
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
  it('has a real example for every country whose check digit is verified', () => {
    expect(Object.keys(CHECKSUM_EXAMPLES).sort()).toEqual([...VAT_CHECKSUM_PREFIXES].sort())
    for (const [prefix, example] of Object.entries(CHECKSUM_EXAMPLES)) {
      const result = validateVatNumber(example)
      expect(result.ok, example).toBe(true)
      if (result.ok) {
        expect(result.value.prefix).toBe(prefix)
        expect(result.value.checksum_verified).toBe(true)
      }
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

  it('covers all 27 member states plus XI, and documents the format-only ones', () => {
    expect(Object.keys(VAT_RULES)).toHaveLength(28)
    expect([...VAT_FORMAT_ONLY_PREFIXES].sort()).toEqual(['BG', 'CY', 'CZ', 'ES', 'IE', 'LT', 'LV'])
  })

  it('accepts format-only countries by shape and says the checksum was not verified', () => {
    for (const example of [
      'BG175074752',
      'BG1750747524',
      'CY10259033P',
      'CZ25123891',
      'CZ7103192745',
      'ESA28015865',
      'ESX1234567L',
      'ES12345678Z',
      'IE6433435F',
      'IE6433435OA',
      'IE8D79739I',
      'LT119511515',
      'LT100001919017',
      'LV40003521600',
    ]) {
      const result = validateVatNumber(example)
      expect(result.ok, example).toBe(true)
      if (result.ok) expect(result.value.checksum_verified).toBe(false)
    }
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
        checksum_verified: true,
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

  it('IT: Luhn-completed numbers are valid; a changed digit is refused', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{10}$/),
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

describe('VAT check digits are determined by the rest of the number (property tests, every checksum country)', () => {
  const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`))
  const nonZero = fc.constantFrom('1', '2', '3', '4', '5', '6', '7', '8', '9')
  /** How to build a number around a candidate check value, and how many values exist (10 or 100). */
  type Template = {
    body: fc.Arbitrary<string>
    build: (body: string, check: string) => string
    width: 1 | 2
    exactlyOne: boolean
  }
  const templates: Record<string, Template> = {
    AT: { body: digits(7), build: (b, c) => `ATU${b}${c}`, width: 1, exactlyOne: true },
    DE: {
      body: fc.tuple(nonZero, digits(7)).map(([a, b]) => a + b),
      build: (b, c) => `DE${b}${c}`,
      width: 1,
      exactlyOne: true,
    },
    DK: {
      body: fc.tuple(nonZero, digits(6)).map(([a, b]) => a + b),
      build: (b, c) => `DK${b}${c}`,
      width: 1,
      exactlyOne: false,
    },
    EE: { body: digits(6), build: (b, c) => `EE10${b}${c}`, width: 1, exactlyOne: true },
    EL: { body: digits(8), build: (b, c) => `EL${b}${c}`, width: 1, exactlyOne: true },
    FI: { body: digits(7), build: (b, c) => `FI${b}${c}`, width: 1, exactlyOne: false },
    FR: { body: digits(9), build: (b, c) => `FR${c}${b}`, width: 2, exactlyOne: true },
    HR: { body: digits(10), build: (b, c) => `HR${b}${c}`, width: 1, exactlyOne: true },
    HU: { body: digits(7), build: (b, c) => `HU${b}${c}`, width: 1, exactlyOne: true },
    IT: { body: digits(10), build: (b, c) => `IT${b}${c}`, width: 1, exactlyOne: true },
    LU: { body: digits(6), build: (b, c) => `LU${b}${c}`, width: 2, exactlyOne: true },
    MT: {
      body: fc.tuple(nonZero, digits(6)).map(([a, b]) => a + b),
      build: (b, c) => `MT${b}${c}`,
      width: 1,
      exactlyOne: false,
    },
    PL: { body: digits(9), build: (b, c) => `PL${b}${c}`, width: 1, exactlyOne: false },
    PT: {
      body: fc.tuple(nonZero, digits(7)).map(([a, b]) => a + b),
      build: (b, c) => `PT${b}${c}`,
      width: 1,
      exactlyOne: true,
    },
    RO: {
      body: fc.tuple(nonZero, fc.integer({ min: 0, max: 8 })).chain(([a, n]) => digits(n).map((b) => a + b)),
      build: (b, c) => `RO${b}${c}`,
      width: 1,
      exactlyOne: true,
    },
    SE: { body: digits(9), build: (b, c) => `SE${b}${c}01`, width: 1, exactlyOne: true },
    SI: {
      body: fc.tuple(nonZero, digits(6)).map(([a, b]) => a + b),
      build: (b, c) => `SI${b}${c}`,
      width: 1,
      exactlyOne: false,
    },
    SK: {
      body: fc
        .tuple(nonZero, digits(1), fc.constantFrom('2', '3', '4', '7', '8', '9'), digits(6))
        .map((parts) => parts.join('')),
      build: (b, c) => `SK${b}${c}`,
      width: 1,
      exactlyOne: false,
    },
    XI: { body: digits(8), build: (b, c) => `XI${b}${c}`, width: 1, exactlyOne: false },
  }

  it('has a template for every single-scheme checksum country (NL and BE have their own properties above)', () => {
    expect(Object.keys(templates).sort()).toEqual(
      VAT_CHECKSUM_PREFIXES.filter((p) => p !== 'NL' && p !== 'BE').sort(),
    )
  })

  for (const [prefix, template] of Object.entries(templates)) {
    it(`${prefix}: ${template.exactlyOne ? 'exactly one' : 'at most one'} check value completes a random number`, () => {
      fc.assert(
        fc.property(template.body, (body) => {
          const candidates = Array.from({ length: template.width === 1 ? 10 : 100 }, (_, i) =>
            String(i).padStart(template.width, '0'),
          )
          const passing = candidates.filter((check) => validateVatNumber(template.build(body, check)).ok)
          if (template.exactlyOne) expect(passing).toHaveLength(1)
          else expect(passing.length).toBeLessThanOrEqual(1)
        }),
        { numRuns: 50 },
      )
    })
  }
})
