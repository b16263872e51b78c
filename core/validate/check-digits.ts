/**
 * Check-digit arithmetic shared by the identifier validators (CBE, VAT, IBAN-like strings,
 * Bitcoin). Inputs are assumed to be pre-validated digit strings; nothing here throws.
 */

/** Remainder of a long decimal string modulo m, computed piecewise so no precision is lost. */
export function modOfDigits(digits: string, m: number): number {
  let remainder = 0
  for (const ch of digits) remainder = (remainder * 10 + (ch.charCodeAt(0) - 48)) % m
  return remainder
}

/**
 * ISO 7064 MOD 97-10 over alphanumerics: letters become 10..35 (A=10 ... Z=35), then the whole
 * number modulo 97 is taken. A string carrying its own check digits is valid when this is 1.
 */
export function mod97OfAlphanumeric(text: string): number {
  let expanded = ''
  for (const ch of text.toUpperCase()) {
    const code = ch.charCodeAt(0)
    expanded += code >= 65 && code <= 90 ? String(code - 55) : ch
  }
  return modOfDigits(expanded, 97)
}

/** Luhn (mod 10) check over a digit string that includes its check digit. */
export function isLuhnValid(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** Luhn check digit for a digit string without it. */
export function luhnCheckDigit(payload: string): number {
  for (let d = 0; d < 10; d++) if (isLuhnValid(payload + d)) return d
  return 0
}

/** ISO 7064 MOD 11,10 check digit for a digit string without it (used by DE VAT and HR OIB). */
export function iso7064Mod11_10CheckDigit(payload: string): number {
  let product = 10
  for (const ch of payload) {
    let sum = (ch.charCodeAt(0) - 48 + product) % 10
    if (sum === 0) sum = 10
    product = (2 * sum) % 11
  }
  return (11 - product) % 10
}

/** Sum of digit * weight over equal-length prefixes of the digit string and the weights. */
export function weightedSum(digits: string, weights: readonly number[]): number {
  let sum = 0
  for (let i = 0; i < weights.length && i < digits.length; i++)
    sum += (digits.charCodeAt(i) - 48) * (weights[i] ?? 0)
  return sum
}

/**
 * True when year-month-day is a real calendar date (leap years included). Personal-code
 * identifiers (Bulgarian EGN, Czech birth numbers, Latvian and Romanian personal codes) embed a
 * birth date, and their reference validators refuse numbers whose date does not exist.
 */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || month < 1 || month > 12 || day < 1) return false
  const date = new Date(Date.UTC(2000, month - 1, day))
  date.setUTCFullYear(year)
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}
