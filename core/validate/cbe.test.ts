import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cbeCheckDigits, formatCbeNumber, isCbeChecksumValid, validateCbeNumber } from './cbe.ts'

/** A random 8-digit stem starting with 0 or 1, completed with its mod-97 check digits. */
const validCbe = fc
  .tuple(fc.constantFrom('0', '1'), fc.stringMatching(/^\d{7}$/))
  .map(([first, rest]) => first + rest + cbeCheckDigits(first + rest))

describe('validateCbeNumber', () => {
  it('accepts published enterprise numbers in dotted and plain form', () => {
    expect(validateCbeNumber('0202.239.951')).toEqual({ ok: true, value: '0202239951' })
    expect(validateCbeNumber('0417497106')).toEqual({ ok: true, value: '0417497106' })
    expect(validateCbeNumber('0403.170.701')).toEqual({ ok: true, value: '0403170701' })
  })

  it('computes the check as 97 minus the first eight digits mod 97', () => {
    // 04031707 mod 97 = 96, so the check digits are 97 - 96 = 01
    expect(cbeCheckDigits('04031707')).toBe('01')
    // 02022399 mod 97 = 46 -> 51
    expect(cbeCheckDigits('02022399')).toBe('51')
  })

  it('rejects a wrong check digit', () => {
    expect(validateCbeNumber('0202.239.952')).toEqual({
      ok: false,
      message: 'has an invalid check digit (mod 97)',
    })
  })

  it('rejects a first digit other than 0 or 1', () => {
    expect(validateCbeNumber('2202239951')).toEqual({ ok: false, message: 'must start with 0 or 1' })
  })

  it('rejects the BE prefix, 9 digits, spaces and misplaced dots', () => {
    for (const input of ['BE0202239951', '202239951', '0202 239 951', '02.02239.951', '0202.239951', '']) {
      expect(validateCbeNumber(input).ok).toBe(false)
    }
  })

  it('formats 10 digits in the dotted KBO form', () => {
    expect(formatCbeNumber('0202239951')).toBe('0202.239.951')
  })

  it('accepts every number built with its mod-97 check digits, dotted or not', () => {
    fc.assert(
      fc.property(validCbe, (cbe) => {
        expect(validateCbeNumber(cbe)).toEqual({ ok: true, value: cbe })
        expect(validateCbeNumber(formatCbeNumber(cbe))).toEqual({ ok: true, value: cbe })
      }),
    )
  })

  it('refuses any single-digit change of a valid number', () => {
    fc.assert(
      fc.property(validCbe, fc.nat(9), fc.integer({ min: 1, max: 9 }), (cbe, position, delta) => {
        const digit = (Number(cbe[position]) + delta) % 10
        const mutated = cbe.slice(0, position) + digit + cbe.slice(position + 1)
        expect(isCbeChecksumValid(mutated)).toBe(false)
        expect(validateCbeNumber(mutated).ok).toBe(false)
      }),
    )
  })
})
