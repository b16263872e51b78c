import { z } from 'zod'

/**
 * Outcome of a pure validator: either the normalised value, or a user-facing message that
 * completes the sentence "<field> ..." (e.g. "must be 8 digits without spaces or prefix").
 * Invalid input is an expected outcome, so it is data, never an exception.
 */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; message: string }

/** A validator takes untrusted text and returns a ValidationResult. */
export type Validator<T> = (input: string) => ValidationResult<T>

/** Builds the success branch of a ValidationResult. */
export function valid<T>(value: T): ValidationResult<T> {
  return { ok: true, value }
}

/** Builds the failure branch of a ValidationResult with a user-facing message. */
export function invalid<T = never>(message: string): ValidationResult<T> {
  return { ok: false, message }
}

/** JSON-Schema hints that travel with a field schema into the OpenAPI document and MCP tool list. */
export type FieldSchemaHints = {
  /** Regular expression describing the accepted shape (documentation only; the validator decides). */
  pattern?: string
  minLength?: number
  maxLength?: number
  examples?: string[]
}

/**
 * Wraps a validator as a zod string schema. The schema only refines (it does not transform), so
 * it converts cleanly to JSON Schema for the OpenAPI document and MCP tool listings, and the
 * request keeps the caller's value. Call the validator itself to get the normalised value.
 * Length and pattern hints are documentation: the validator alone decides, so a caller gets one
 * clear message per field instead of several overlapping ones.
 */
export function stringSchemaFrom<T>(
  validator: Validator<T>,
  description: string,
  hints: FieldSchemaHints = {},
) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const result = validator(value)
      if (!result.ok) ctx.addIssue({ code: 'custom', message: result.message })
    })
    .meta({ description, ...hints })
}
