import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type FieldError, ServiceError } from '../errors.ts'
import { requiredIssue } from '../validate/required-issue.ts'
import { EntityCheckInput } from './entity-check.ts'
import { fieldErrors, parseWith, textErrors } from './parse.ts'

const Sample = z
  .object({
    name: z.string(),
    count: z.number().int().optional(),
    flag: z.boolean().optional(),
    tags: z.array(z.string()).optional(),
    size: z.object({ min: z.number(), max: z.number() }).strict().optional(),
    tier: z.enum(['sandbox', 'free']).optional(),
  })
  .strict()

/** The refusal parseWith throws for `raw`; fails the test if it parses. */
function refusalOf(schema: z.ZodType, raw: unknown): ServiceError {
  try {
    parseWith(schema, raw)
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError)
    return error as ServiceError
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`)
}

/**
 * The field errors parseWith throws for `raw`: 400 (bad_request) when a required field is
 * missing, else 422 (validation_failed); fails the test if it parses.
 */
function errorsOf(schema: z.ZodType, raw: unknown): FieldError[] {
  const refusal = refusalOf(schema, raw)
  const fields = refusal.fields ?? []
  const missing = fields.some((field) => /^is required/.test(field.message))
  expect(refusal.code).toBe(missing ? 'bad_request' : 'validation_failed')
  return fields
}

describe('parseWith field errors', () => {
  it('returns the parsed value when the input is valid', () => {
    expect(parseWith(Sample, { name: 'x', count: 2 })).toEqual({ name: 'x', count: 2 })
  })

  it('refuses a missing required field with 400 (bad_request), still naming it', () => {
    const refusal = refusalOf(Sample, {})
    expect(refusal.code).toBe('bad_request')
    expect(refusal.fields).toEqual([{ field: 'name', message: 'is required' }])
    // Nested: a required member of an optional object that was sent.
    expect(refusalOf(Sample, { name: 'x', size: { min: 1 } }).code).toBe('bad_request')
  })

  it('refuses wrong values with 422 (validation_failed) when nothing required is missing', () => {
    expect(refusalOf(Sample, { name: 5 }).code).toBe('validation_failed')
    expect(refusalOf(Sample, { name: 'x', extra: 1 }).code).toBe('validation_failed')
    expect(refusalOf(Sample, null).code).toBe('validation_failed')
  })

  it('refuses a request with a missing field and a wrong value with 400, listing both', () => {
    const refusal = refusalOf(EntityCheckInput, { country: 'nl' })
    expect(refusal.code).toBe('bad_request')
    expect(refusal.fields).toEqual([
      { field: 'entity_name', message: 'is required' },
      { field: 'country', message: 'must be uppercase ISO 3166-1 alpha-2 (NL)' },
    ])
  })

  it('counts a field a refinement requires (requiredIssue) as missing: 400', () => {
    const schema = z
      .object({ a: z.string().optional(), b: z.string().optional() })
      .strict()
      .superRefine((input, ctx) => {
        if (input.a === undefined && input.b === undefined)
          ctx.addIssue(requiredIssue(['a'], 'is required unless b is sent'))
        if (input.b === 'bad') ctx.addIssue({ code: 'custom', path: ['b'], message: 'is not good' })
      })
    expect(refusalOf(schema, {})).toMatchObject({
      code: 'bad_request',
      fields: [{ field: 'a', message: 'is required unless b is sent' }],
    })
    expect(refusalOf(schema, { b: 'bad' })).toMatchObject({
      code: 'validation_failed',
      fields: [{ field: 'b', message: 'is not good' }],
    })
  })

  it('says "is required" for a missing field', () => {
    expect(errorsOf(Sample, {})).toEqual([{ field: 'name', message: 'is required' }])
  })

  it('says "is required" for a missing enum field rather than listing the options', () => {
    const schema = z.object({ tier: z.enum(['sandbox', 'free']) }).strict()
    expect(errorsOf(schema, {})).toEqual([{ field: 'tier', message: 'is required' }])
  })

  it.each([
    ['number', 123, 'expected string, received number'],
    ['null', null, 'expected string, received null'],
    ['array', ['a'], 'expected string, received array'],
    ['object', { a: 1 }, 'expected string, received object'],
    ['boolean', true, 'expected string, received boolean'],
  ])('names the expected and received type when a string field gets a %s', (_kind, value, message) => {
    expect(errorsOf(Sample, { name: value })).toEqual([{ field: 'name', message }])
  })

  it.each([
    ['count', 'seven', 'expected number, received string'],
    ['count', 1.5, 'expected integer, received number'],
    ['flag', 'yes', 'expected boolean, received string'],
    ['tags', 'a', 'expected array, received string'],
    ['size', [1, 2], 'expected object, received array'],
    ['size', null, 'expected object, received null'],
  ])('reports a wrong type for %s = %j as "%s"', (field, value, message) => {
    expect(errorsOf(Sample, { name: 'x', [field]: value })).toEqual([{ field, message }])
  })

  it('reports the documented example body: entity_name of the wrong type, not "is required"', () => {
    expect(errorsOf(EntityCheckInput, { entity_name: 123, country: 'NL' })).toEqual([
      { field: 'entity_name', message: 'expected string, received number' },
    ])
    expect(errorsOf(EntityCheckInput, { country: 'NL' })).toEqual([
      { field: 'entity_name', message: 'is required' },
    ])
  })

  it('names the alternatives of a union refused by type', () => {
    const schema = z.object({ amount: z.union([z.string(), z.number()]) }).strict()
    expect(errorsOf(schema, { amount: false })).toEqual([
      { field: 'amount', message: 'expected string or number, received boolean' },
    ])
    expect(errorsOf(schema, {})).toEqual([{ field: 'amount', message: 'is required' }])
  })

  it('keeps the dotted path of nested fields and array items', () => {
    expect(errorsOf(Sample, { name: 'x', size: { min: 'a' } })).toEqual([
      { field: 'size.min', message: 'expected number, received string' },
      { field: 'size.max', message: 'is required' },
    ])
    expect(errorsOf(Sample, { name: 'x', tags: ['a', 2] })).toEqual([
      { field: 'tags.1', message: 'expected string, received number' },
    ])
  })

  it('reports unknown keys as unknown fields', () => {
    expect(errorsOf(Sample, { name: 'x', extra: 1, other: 2 })).toEqual([
      { field: 'extra, other', message: 'unknown field (no other properties are allowed)' },
    ])
    expect(errorsOf(Sample, { name: 'x', size: { min: 1, max: 2, step: 1 } })).toEqual([
      { field: 'size.step', message: 'unknown field (no other properties are allowed)' },
    ])
  })

  it('keeps a message listing the allowed values on an enum mismatch', () => {
    const [error, ...rest] = errorsOf(Sample, { name: 'x', tier: 'gold' })
    expect(rest).toEqual([])
    expect(error?.field).toBe('tier')
    expect(error?.message).toContain('"sandbox"')
    expect(error?.message).toContain('"free"')
    expect(error?.message).not.toBe('is required')
  })

  it('keeps the messages of refinements and formats', () => {
    expect(errorsOf(EntityCheckInput, { entity_name: 'A', country: 'nl' })).toEqual([
      { field: 'entity_name', message: 'must be at least 2 characters (not counting surrounding spaces)' },
      { field: 'country', message: 'must be uppercase ISO 3166-1 alpha-2 (NL)' },
    ])
  })

  it('reports a body of the wrong type against the body itself', () => {
    expect(errorsOf(Sample, null)).toEqual([{ field: '(body)', message: 'expected object, received null' }])
    expect(errorsOf(Sample, [])).toEqual([{ field: '(body)', message: 'expected object, received array' }])
  })

  it("falls back to zod's message for issues parsed without reportInput", () => {
    const parsed = Sample.safeParse({ name: 123 })
    expect(parsed.success).toBe(false)
    const [error] = fieldErrors(parsed.error as z.ZodError)
    expect(error?.field).toBe('name')
    expect(error?.message).not.toBe('is required')
    expect(error?.message).toContain('received number')
  })
})

describe('text fields', () => {
  it('names a lone surrogate, NUL or control character with its position, at any depth', () => {
    expect(textErrors({ name: 'ab\ud800', tags: ['ok', 'x\u0000'], size: { note: '\u001b[31m' } })).toEqual([
      { field: 'name', message: 'is not well-formed Unicode (lone surrogate at position 2)' },
      { field: 'tags.1', message: 'contains a control character (U+0000) at position 1' },
      { field: 'size.note', message: 'contains a control character (U+001B) at position 0' },
    ])
    expect(textErrors({ 'a\u0000': 1 })).toEqual([
      { field: '(body) (a field name)', message: 'contains a control character (U+0000) at position 1' },
    ])
  })

  it('accepts tabs, newlines, surrogate pairs and every script', () => {
    expect(textErrors({ name: 'Ткачёв\tНиколай\r\n😀 北京 عربي' })).toEqual([])
  })

  it('refuses bad text before the schema, with 422', () => {
    let error: ServiceError | undefined
    try {
      parseWith(Sample, { name: 'K\u0000' })
    } catch (e) {
      error = e as ServiceError
    }
    expect(error?.code).toBe('validation_failed')
    expect(error?.fields).toEqual([
      { field: 'name', message: 'contains a control character (U+0000) at position 1' },
    ])
  })

  it('refuses input nested deeper than 32 levels with a 422 instead of overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)
    const errors = textErrors(deep)
    expect(errors).toHaveLength(1)
    expect(errors[0]?.message).toBe('is nested deeper than 32 levels')
  })
})
