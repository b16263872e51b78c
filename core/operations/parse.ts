import type { z } from 'zod'
import { type FieldError, ServiceError } from '../errors.ts'

/** Maps zod issues to the spec's 422 detail: `{field, message}` with field names as sent. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return { field: issue.keys.join(', '), message: 'unknown field (no other properties are allowed)' }
    }
    const field = issue.path.map(String).join('.') || '(body)'
    const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message
    return { field, message }
  })
}

/** Parses with a schema, throwing the spec's 422 (detail = field errors) on failure. */
export function parseWith<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw)
  if (!parsed.success) {
    throw new ServiceError('validation_failed', 'invalid request', { fields: fieldErrors(parsed.error) })
  }
  return parsed.data
}
