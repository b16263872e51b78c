import { describe, expect, it } from 'vitest'
import { invalidUtf8Offset } from './request.ts'

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === 'string' ? [...Buffer.from(part, 'utf8')] : part)))

describe('invalidUtf8Offset', () => {
  it('finds nothing wrong in well-formed UTF-8, a written U+FFFD and a BOM included', () => {
    expect(invalidUtf8Offset(bytes('{"name":"Ткачёв 😀 \ufffd"}'))).toBeUndefined()
    expect(invalidUtf8Offset(bytes([0xef, 0xbb, 0xbf], '{}'))).toBeUndefined()
    expect(invalidUtf8Offset(new Uint8Array())).toBeUndefined()
  })

  it.each([
    ['a Latin-1 byte', bytes('{"n":"Caf', [0xe9], '"}'), 9],
    ['a lone continuation byte', bytes('ab', [0x80]), 2],
    ['an overlong encoding of "/"', bytes('x', [0xc0, 0xaf]), 1],
    ['an encoded UTF-16 surrogate', bytes('xy', [0xed, 0xa0, 0x80]), 2],
    ['a sequence cut short at the end', bytes('abc', [0xe2, 0x82]), 3],
    ['a code point above U+10FFFF', bytes([0xf4, 0x90, 0x80, 0x80]), 0],
    ['0xFF after a written U+FFFD', bytes('\ufffd', [0xff]), 3],
  ])('gives the offset of %s', (_what, input, offset) => {
    expect(invalidUtf8Offset(input)).toBe(offset)
  })
})
