import { describe, expect, it } from 'vitest'
import { distinctHeaders, inertCell } from './leads-verify.ts'
import { checkUtf8Lines } from './utf8-lines.ts'

async function* chunked(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}

describe('checkUtf8Lines', () => {
  it('accepts UTF-8 whose multi-byte characters and CRLFs are split across chunks', async () => {
    const text = Buffer.from('naam\r\nCafé ∑ 😀\r\nÉtoile\rLast\n')
    for (const size of [1, 2, 3, 5, 64]) expect(await checkUtf8Lines(chunked(text, size))).toBeUndefined()
  })

  it('names the line and column of the first byte that is not UTF-8, whatever the chunk size', async () => {
    const bytes = Buffer.concat([
      Buffer.from('a\r\nb\rcé\n'),
      Buffer.from([0x78, 0x79, 0xe9, 0x0a]), // "xyé" in Latin-1 on line 4
    ])
    for (const size of [1, 2, 3, 7, 64]) {
      expect(await checkUtf8Lines(chunked(bytes, size))).toEqual({ line: 4, column: 3, byte: 0xe9 })
    }
    // A sequence cut short by the end of the file.
    expect(await checkUtf8Lines(chunked(Buffer.from([0x61, 0xe2, 0x82]), 1))).toEqual({
      line: 1,
      column: 2,
      byte: 0xe2,
    })
    // Overlong and surrogate encodings are not UTF-8 either.
    expect(await checkUtf8Lines(chunked(Buffer.from([0xc0, 0xaf]), 64))).toMatchObject({ column: 1 })
    expect(await checkUtf8Lines(chunked(Buffer.from([0x41, 0xed, 0xa0, 0x80]), 64))).toMatchObject({
      column: 2,
    })
  })
})

describe('distinctHeaders', () => {
  it('keeps every column: repeated names get a suffix no other column has, empty ones column_<n>', () => {
    expect(distinctHeaders(['email', 'email', 'email_2', '', 'email'])).toEqual([
      'email',
      'email_3',
      'email_2',
      'column_4',
      'email_4',
    ])
  })
})

describe('inertCell', () => {
  it('prefixes cells a spreadsheet would run as formulas (OWASP CSV injection), nothing else', () => {
    for (const cell of ['=1+1', '+31 6', '-2', '@SUM(A1)', '\tx', '\rx'])
      expect(inertCell(cell)).toBe(`'${cell}`)
    for (const cell of ['', 'Voorbeeld B.V.', '12', "'quoted", ' =x']) expect(inertCell(cell)).toBe(cell)
  })

  it('writes bidirectional controls as [U+XXXX], so a right-to-left override cannot reorder a row', () => {
    expect(inertCell('Acme \u202Efdp.exe')).toBe('Acme [U+202E]fdp.exe')
    expect(inertCell('\u2067=1')).toBe('[U+2067]=1')
  })
})
