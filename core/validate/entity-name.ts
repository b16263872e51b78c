import { invalid, type ValidationResult, valid } from './result.ts'

export const ENTITY_NAME_MIN = 2
export const ENTITY_NAME_MAX = 255

/**
 * Validates a company or person name. Spec: "entity_name: 2 to 255 characters" (Limits).
 * Length counts Unicode code points after trimming, so "Ørsted" or "株式会社" are measured as a
 * person reads them, not in UTF-16 units. A name must contain at least one letter or digit, and
 * control characters are refused. Normalised form: NFC, trimmed, inner whitespace runs collapsed.
 */
export function validateEntityName(input: string): ValidationResult<string> {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(input))
    return invalid('must not contain control characters')
  const normalised = input.normalize('NFC').trim().replace(/\s+/gu, ' ')
  const length = [...normalised].length
  if (length < ENTITY_NAME_MIN)
    return invalid(`must be at least ${ENTITY_NAME_MIN} characters (not counting surrounding spaces)`)
  if (length > ENTITY_NAME_MAX) return invalid(`must be at most ${ENTITY_NAME_MAX} characters`)
  if (!/[\p{L}\p{N}]/u.test(normalised)) return invalid('must contain at least one letter or digit')
  return valid(normalised)
}
