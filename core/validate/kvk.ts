import { invalid, type ValidationResult, valid } from './result.ts'

/**
 * Validates a Dutch Chamber of Commerce (KVK) number. Spec: "kvk_number: exactly 8 digits, no
 * spaces, dashes or prefix". KVK numbers carry no published check digit, so any 8 digits are
 * structurally valid; whether the number exists is for the register lookup to say.
 */
export function validateKvkNumber(input: string): ValidationResult<string> {
  if (/^\d{8}$/.test(input)) return valid(input)
  if (/^\s|\s$/.test(input) || /[\s.-]/.test(input))
    return invalid('must be 8 digits without spaces, dots or dashes')
  if (/^kvk/i.test(input) || /^NL/i.test(input))
    return invalid('must be 8 digits without a prefix such as "KVK" or "NL"')
  if (/^\d+$/.test(input)) return invalid(`must be exactly 8 digits (got ${input.length})`)
  return invalid('must be exactly 8 digits')
}
