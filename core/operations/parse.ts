import type { z } from 'zod'
import { type FieldError, ServiceError } from '../errors.ts'
import { bidiControlProblem } from '../validate/bidi.ts'
import { MISSING_FIELD } from '../validate/required-issue.ts'

type Issue = z.core.$ZodIssue

/**
 * Maps zod issues to the spec's 400/422 detail: `{field, message}` with field names as sent (dotted
 * for nested fields). Needs issues parsed with `reportInput: true` (as `parseWith` does) to tell
 * a missing field ("is required") from one of the wrong type ("expected string, received number").
 */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((key) => [...issue.path, key].map(String).join('.'))
      return { field: keys.join(', '), message: 'unknown field (no other properties are allowed)' }
    }
    const field = issue.path.map(String).join('.') || '(body)'
    return { field, message: issueMessage(issue) }
  })
}

/**
 * Control characters no text field accepts: C0 except tab, line feed and carriage return, DEL, and
 * C1. NUL in particular is refused by PostgreSQL text columns.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern is the list of control characters refused
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/

/** In a `u` pattern a surrogate pair is one code point, so this matches only a lone half. */
const LONE_SURROGATE = /\p{Surrogate}/u

function textProblem(value: string): string | undefined {
  const lone = LONE_SURROGATE.exec(value)
  if (lone) return `is not well-formed Unicode (lone surrogate at position ${lone.index})`
  const control = CONTROL_CHARACTER.exec(value)
  if (control) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
    return `contains a control character (U+${code}) at position ${control.index}`
  }
  return bidiControlProblem(value)
}

/** Deeper input is refused (no operation's input nests more than a few levels). */
const MAX_DEPTH = 32

/**
 * Every string in an input, at any depth (keys included), must be well-formed Unicode without
 * control characters, bidirectional formatting characters included (core/validate/bidi.ts): refused with 422 naming the field before anything is stored or charged.
 */
export function textErrors(value: unknown, path: readonly string[] = []): FieldError[] {
  const field = () => path.join('.') || '(body)'
  // JSON.parse accepts any depth; walking it must not overflow the stack (a 500).
  if (path.length > MAX_DEPTH && typeof value === 'object' && value !== null) {
    return [{ field: field(), message: `is nested deeper than ${MAX_DEPTH} levels` }]
  }
  if (typeof value === 'string') {
    const message = textProblem(value)
    return message ? [{ field: field(), message }] : []
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => textErrors(item, [...path, String(index)]))
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => {
      const keyMessage = textProblem(key)
      const keyErrors = keyMessage ? [{ field: `${field()} (a field name)`, message: keyMessage }] : []
      return [...keyErrors, ...textErrors(item, [...path, keyMessage ? '?' : key])]
    })
  }
  return []
}

/** A field that was not sent at all (zod's own issue, or one made by `requiredIssue` in core/validate). */
function isMissingField(issue: Issue): boolean {
  if (issue.code === 'custom') return issue.params?.[MISSING_FIELD] === true
  if (issue.code !== 'invalid_type' && issue.code !== 'invalid_value' && issue.code !== 'invalid_union') {
    return false
  }
  return 'input' in issue && issue.input === undefined
}

/** Schemas with an array field whose items the schema checks one by one (text included). */
const ITEMS_CHECKED_ONE_BY_ONE = new WeakMap<z.ZodType, string>()

/**
 * Marks `field` (an array) of `schema` as checked item by item by the schema and its operation: a
 * control character or lone surrogate in one item is that item's own error (a batch keeps its
 * other items), so `parseWith` checks the text of every other field and leaves that array's items
 * to the schema.
 */
export function itemsCheckedOneByOne<S extends z.ZodType>(schema: S, field: string): S {
  ITEMS_CHECKED_ONE_BY_ONE.set(schema, field)
  return schema
}

/** The text errors of a request body, but for the items of a field the schema checks one by one. */
function requestTextErrors(schema: z.ZodType, raw: unknown): FieldError[] {
  const field = ITEMS_CHECKED_ONE_BY_ONE.get(schema)
  if (!field || typeof raw !== 'object' || raw === null || Array.isArray(raw)) return textErrors(raw)
  const { [field]: items, ...rest } = raw as Record<string, unknown>
  return [...textErrors(rest), ...(Array.isArray(items) ? [] : textErrors(items, [field]))]
}

/**
 * Parses with a schema. Failures carry the `{field, message}` list (spec: Errors): 400 when a
 * required field is missing (the list still names every problem, the missing field `is required`),
 * 422 when every field is there but some values are wrong.
 */
export function parseWith<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const badText = requestTextErrors(schema, raw)
  if (badText.length > 0) throw new ServiceError('validation_failed', 'invalid request', { fields: badText })
  const parsed = schema.safeParse(raw, { reportInput: true })
  if (!parsed.success) {
    const fields = fieldErrors(parsed.error)
    if (parsed.error.issues.some(isMissingField)) {
      throw new ServiceError('bad_request', 'a required field is missing', { fields })
    }
    throw new ServiceError('validation_failed', 'invalid request', { fields })
  }
  return parsed.data
}

function issueMessage(issue: Issue): string {
  if (issue.code !== 'invalid_type' && issue.code !== 'invalid_value' && issue.code !== 'invalid_union') {
    return issue.message
  }
  // Without reportInput zod leaves `input` off the issue: the message alone is all there is.
  if (!('input' in issue)) return issue.message
  if (issue.input === undefined) return 'is required'
  if (issue.code === 'invalid_type') return typeMismatch([issue.expected], issue.input)
  if (issue.code === 'invalid_union') {
    // Every alternative refused the type itself (e.g. string | number given a boolean).
    const expected = issue.errors.map((branch) => {
      const [only] = branch
      return branch.length === 1 && only?.code === 'invalid_type' && only.path.length === 0
        ? only.expected
        : undefined
    })
    if (expected.length > 0 && expected.every((name) => name !== undefined)) {
      return typeMismatch(expected, issue.input)
    }
  }
  return issue.message
}

function typeMismatch(expected: readonly string[], input: unknown): string {
  const names = [...new Set(expected.map((name) => (name === 'int' ? 'integer' : name)))]
  return `expected ${names.join(' or ')}, received ${receivedType(input)}`
}

/** The JSON type of a value as a caller would name it: null and array are not "object". */
function receivedType(input: unknown): string {
  if (input === null) return 'null'
  if (Array.isArray(input)) return 'array'
  if (typeof input === 'number' && !Number.isFinite(input)) return String(input)
  return typeof input
}
