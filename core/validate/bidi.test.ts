import { describe, expect, it } from 'vitest'
import { bidiControlProblem, neutraliseBidi } from './bidi.ts'

const CONTROLS = [
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]

describe('bidirectional controls', () => {
  it.each(CONTROLS)('refuses U+%s in input, naming it and its position', (code) => {
    const char = String.fromCodePoint(code)
    const hex = code.toString(16).toUpperCase().padStart(4, '0')
    expect(bidiControlProblem(`Acme ${char}B.V.`)).toMatch(
      new RegExp(`^contains a bidirectional control character \\(U\\+${hex} [A-Z -]+\\) at position 5: `),
    )
    expect(neutraliseBidi(`a${char}b`)).toBe(`a[U+${hex}]b`)
  })

  it('leaves right-to-left text itself alone: only the invisible controls are refused', () => {
    for (const text of ['شركة المثال', 'דוגמה בע"מ', 'Voorbeeld B.V.', 'a\u200bb', 'x\u2060y']) {
      expect(bidiControlProblem(text)).toBeUndefined()
      expect(neutraliseBidi(text)).toBe(text)
    }
  })
})
