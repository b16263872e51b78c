import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { validateKvkNumber } from './kvk.ts'

describe('validateKvkNumber', () => {
  it('accepts any 8 digits, including a leading zero', () => {
    expect(validateKvkNumber('17001910')).toEqual({ ok: true, value: '17001910' })
    expect(validateKvkNumber('01234567').ok).toBe(true)
    fc.assert(fc.property(fc.stringMatching(/^\d{8}$/), (kvk) => validateKvkNumber(kvk).ok))
  })

  it('rejects spaces, dots and dashes with the spec wording', () => {
    for (const input of ['1700 1910', '17-001910', '17.00.19.10', ' 17001910', '17001910 ']) {
      const result = validateKvkNumber(input)
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.message).toMatch(/without spaces/)
    }
  })

  it('rejects a KVK or NL prefix', () => {
    for (const input of ['KVK17001910', 'kvk17001910', 'NL17001910']) {
      const result = validateKvkNumber(input)
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.message).toMatch(/prefix/)
    }
  })

  it('rejects 7 or 9 digits and says how many were given', () => {
    expect(validateKvkNumber('1700191')).toEqual({ ok: false, message: 'must be exactly 8 digits (got 7)' })
    expect(validateKvkNumber('170019101')).toEqual({ ok: false, message: 'must be exactly 8 digits (got 9)' })
  })

  it('rejects non-ASCII digits and letters', () => {
    expect(validateKvkNumber('١٢٣٤٥٦٧٨').ok).toBe(false)
    expect(validateKvkNumber('1700191O').ok).toBe(false)
  })
})
