import { modOfDigits } from './check-digits.ts'
import { invalid, type ValidationResult, valid } from './result.ts'

/**
 * Check digits of a Belgian enterprise number: 97 - (first 8 digits mod 97), as two digits.
 * Shared with the Belgian VAT number, which is the same number with a BE prefix.
 */
export function cbeCheckDigits(firstEight: string): string {
  return String(97 - modOfDigits(firstEight, 97)).padStart(2, '0')
}

/** True when a 10-digit string starts with 0 or 1 and its last two digits are the mod-97 check. */
export function isCbeChecksumValid(tenDigits: string): boolean {
  return /^[01]\d{9}$/.test(tenDigits) && cbeCheckDigits(tenDigits.slice(0, 8)) === tenDigits.slice(8)
}

/**
 * Validates a Belgian enterprise number (KBO/BCE, "CBE number"). Spec: "cbe_number:
 * 0XXX.XXX.XXX or 10 digits". The first digit is 0 or 1 and the last two digits are
 * 97 - (first eight digits mod 97).
 * Normalised form: the 10 digits without dots (see formatCbeNumber for the dotted form).
 */
export function validateCbeNumber(input: string): ValidationResult<string> {
  if (/^BE/i.test(input))
    return invalid('must be the enterprise number without the BE prefix (0XXX.XXX.XXX or 10 digits)')
  let digits: string
  if (/^\d{4}\.\d{3}\.\d{3}$/.test(input)) digits = input.replaceAll('.', '')
  else if (/^\d{10}$/.test(input)) digits = input
  else return invalid('must be formatted as 0XXX.XXX.XXX or 10 digits')
  if (!/^[01]/.test(digits)) return invalid('must start with 0 or 1')
  if (!isCbeChecksumValid(digits)) return invalid('has an invalid check digit (mod 97)')
  return valid(digits)
}

/** Formats 10 enterprise-number digits as 0XXX.XXX.XXX (the form the KBO publishes). */
export function formatCbeNumber(tenDigits: string): string {
  return `${tenDigits.slice(0, 4)}.${tenDigits.slice(4, 7)}.${tenDigits.slice(7, 10)}`
}
