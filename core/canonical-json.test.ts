import canonicalize from 'canonicalize'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json.ts'

/** What the package answers: its text, or the message it throws. */
function packageAnswer(value: unknown): { text?: string; error?: string } {
  try {
    return { text: canonicalize(value) }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

function ownAnswer(value: unknown): { text?: string; error?: string } {
  try {
    return { text: canonicalJson(value) }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

/** Strings with every kind of UTF-16 content: ASCII, escapes, astral characters, lone surrogates. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\ud800',
    'a\udc00b',
    '\ud83d\ude00',
    '\u2028',
    '"\\/\b\f\n\r\t',
    '\u0000\u001f\u007f',
    'é',
    'ﬁ',
  ),
)
const number = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    1e21,
    1e-7,
    5e-324,
    Number.MAX_SAFE_INTEGER + 2,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ),
)
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value')),
    fc.dictionary(text, tie('value')),
    fc.date({ noInvalidDate: true }),
  ),
}))

describe('canonicalJson', () => {
  it('answers exactly what the canonicalize package answers, texts and refusals, on generated values', () => {
    fc.assert(
      fc.property(value, (generated) => {
        expect(ownAnswer(generated)).toEqual(packageAnswer(generated))
      }),
      { numRuns: 3000 },
    )
  })

  it('matches the package on the edge cases of its own: holes, functions, symbols, toJSON and cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const shared = { x: 1 }
    // biome-ignore lint/suspicious/noSparseArray: a hole is the case under test
    const sparse = [1, , 3]
    const cases: unknown[] = [
      sparse,
      [() => 1, Symbol('s'), undefined],
      { f: () => 1, s: Symbol('s'), u: undefined, n: null },
      { toJSON: () => ({ b: 2, a: 1 }) },
      { when: new Date(0), bytes: Buffer.from('ab') },
      cyclic,
      [shared, shared, { again: shared }],
      { '\ud800': undefined, ok: 1 },
      { '\ud800': 1 },
      { b: 1, a: 2, B: 3, é: 4, '\ud83d\ude00': 5, '\uffff': 6, '': 7, '10': 8, '9': 9 },
      JSON.parse('{"__proto__": {"b": 1}, "a": 2}'),
      [JSON.parse('{"constructor": 1, "toString": 2}')],
      undefined,
      'plain',
      1n,
    ]
    for (const entry of cases) expect(ownAnswer(entry)).toEqual(packageAnswer(entry))
  })

  it('gives RFC 8785 text for a receipt-shaped value', () => {
    expect(canonicalJson({ b: [1, 'x', { d: 1e21, c: -0 }], a: 'é\u2028', n: null })).toBe(
      '{"a":"é\u2028","b":[1,"x",{"c":0,"d":1e+21}],"n":null}',
    )
  })
})
