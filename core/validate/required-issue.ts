/**
 * The zod issue a refinement adds for a field that is required only in some cases ("country is
 * required unless trust_score and cluster are sent"). The request is then refused like one that
 * lacks a field the schema itself requires (spec: Errors, 400 "required field missing"), rather
 * than as a wrong value (422). `parseWith` (core/operations/parse.ts) reads the marker.
 */
export function requiredIssue(path: PropertyKey[], message: string) {
  return { code: 'custom' as const, path, message, params: { [MISSING_FIELD]: true } }
}

/** The `params` member that marks a custom issue as a missing field. */
export const MISSING_FIELD = 'missing_field'
