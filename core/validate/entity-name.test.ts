import { describe, expect, it } from 'vitest'
import { validateEntityName } from './entity-name.ts'

describe('validateEntityName', () => {
  it('accepts ordinary company names and normalises whitespace', () => {
    expect(validateEntityName('  Koninklijke   Philips N.V. ')).toEqual({
      ok: true,
      value: 'Koninklijke Philips N.V.',
    })
    expect(validateEntityName('3M')).toEqual({ ok: true, value: '3M' })
  })

  it('counts Unicode code points, not UTF-16 units', () => {
    expect(validateEntityName('株式').ok).toBe(true)
    expect(validateEntityName('𝔸𝔹').ok).toBe(true) // 2 code points, 4 UTF-16 units
    expect(validateEntityName('😀'.repeat(255)).ok).toBe(false) // emoji only: no letter or digit
    expect(validateEntityName(`A${'😀'.repeat(254)}`).ok).toBe(true) // 255 code points
    expect(validateEntityName(`A${'😀'.repeat(255)}`).ok).toBe(false) // 256 code points
  })

  it('rejects names shorter than 2 characters after trimming', () => {
    expect(validateEntityName('A').ok).toBe(false)
    expect(validateEntityName('  A  ').ok).toBe(false)
    expect(validateEntityName('').ok).toBe(false)
  })

  it('accepts exactly 255 characters and rejects 256', () => {
    expect(validateEntityName('a'.repeat(255)).ok).toBe(true)
    const result = validateEntityName('a'.repeat(256))
    expect(result).toEqual({ ok: false, message: 'must be at most 255 characters' })
  })

  it('rejects names made only of whitespace or punctuation', () => {
    for (const input of ['    ', '--', '...', '& ?', '\u00a0\u00a0\u00a0'])
      expect(validateEntityName(input).ok).toBe(false)
  })

  it('rejects control characters', () => {
    expect(validateEntityName('Acme\u0000 BV').ok).toBe(false)
    expect(validateEntityName('Acme\u001b[31m').ok).toBe(false)
  })
})
