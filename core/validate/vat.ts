import { isCbeChecksumValid } from './cbe.ts'
import {
  isLuhnValid,
  iso7064Mod11_10CheckDigit,
  mod97OfAlphanumeric,
  modOfDigits,
  weightedSum,
} from './check-digits.ts'
import { countryForVatPrefix } from './country.ts'
import type { CountryCode } from './iso-3166-alpha2.ts'
import { invalid, type ValidationResult, valid } from './result.ts'

/** A VIES VAT prefix: the EU-27 ISO codes with EL for Greece, plus XI for Northern Ireland. */
export type VatPrefix =
  | 'AT'
  | 'BE'
  | 'BG'
  | 'CY'
  | 'CZ'
  | 'DE'
  | 'DK'
  | 'EE'
  | 'EL'
  | 'ES'
  | 'FI'
  | 'FR'
  | 'HR'
  | 'HU'
  | 'IE'
  | 'IT'
  | 'LT'
  | 'LU'
  | 'LV'
  | 'MT'
  | 'NL'
  | 'PL'
  | 'PT'
  | 'RO'
  | 'SE'
  | 'SI'
  | 'SK'
  | 'XI'

type VatRule = {
  /** Shape of the part after the prefix. */
  pattern: RegExp
  /** Human description of that shape, used in messages. */
  format: string
  /** National check-digit test over the part after the prefix; absent = format-only. */
  checksum?: (number: string) => boolean
}

const digitsAt = (s: string, i: number) => s.charCodeAt(i) - 48

/** AT: UID "U" + 8 digits; the 8th digit is (6 - Luhn sum of digits 1-7) mod 10 (BMF algorithm). */
function atChecksum(n: string): boolean {
  const d = n.slice(1)
  let sum = 0
  for (let i = 0; i < 7; i++) {
    let v = digitsAt(d, i)
    if (i % 2 === 1) {
      v *= 2
      if (v > 9) v -= 9
    }
    sum += v
  }
  return (96 - sum) % 10 === digitsAt(d, 7)
}

/** EL: 9 digits; check = (sum of d_i * 2^(8-i), i < 8) mod 11 mod 10. */
function elChecksum(n: string): boolean {
  let sum = 0
  for (let i = 0; i < 8; i++) sum = sum * 2 + digitsAt(n, i)
  return ((sum * 2) % 11) % 10 === digitsAt(n, 8)
}

/** FR: 2-character key + 9-digit SIREN; a numeric key must equal (12 + 3 * (SIREN mod 97)) mod 97. */
function frChecksum(n: string): boolean {
  const key = n.slice(0, 2)
  if (!/^\d{2}$/.test(key)) return true // alphanumeric keys (new-style) have no public check algorithm
  return Number(key) === (12 + 3 * modOfDigits(n.slice(2), 97)) % 97
}

/** NL: the 9 digits pass the 11-proof (RSIN), or the whole "NL...B.." string passes MOD 97-10. */
function nlChecksum(n: string): boolean {
  const nine = n.slice(0, 9)
  if (/^0+$/.test(nine) || n.slice(10) === '00') return false
  const elevenProof = weightedSum(nine, [9, 8, 7, 6, 5, 4, 3, 2]) - digitsAt(nine, 8)
  return elevenProof % 11 === 0 || mod97OfAlphanumeric(`NL${n}`) === 1
}

/** PL: weights 6,5,7,2,3,4,5,6,7; the remainder mod 11 is the 10th digit (10 never valid). */
function plChecksum(n: string): boolean {
  return weightedSum(n, [6, 5, 7, 2, 3, 4, 5, 6, 7]) % 11 === digitsAt(n, 9)
}

/** PT: weights 9..2; check = (11 - sum mod 11), 10 and 11 become 0. */
function ptChecksum(n: string): boolean {
  return ((11 - (weightedSum(n, [9, 8, 7, 6, 5, 4, 3, 2]) % 11)) % 11) % 10 === digitsAt(n, 8)
}

/** RO: left-pad to 10 digits; check = (10 * weighted sum with 7,5,3,2,1,7,5,3,2) mod 11 mod 10. */
function roChecksum(n: string): boolean {
  const padded = n.padStart(10, '0')
  return ((10 * weightedSum(padded, [7, 5, 3, 2, 1, 7, 5, 3, 2])) % 11) % 10 === digitsAt(padded, 9)
}

/** SI: weights 8..2; check = 11 - sum mod 11, with 10 -> 0 and 11 impossible. */
function siChecksum(n: string): boolean {
  const check = 11 - (weightedSum(n, [8, 7, 6, 5, 4, 3, 2]) % 11)
  if (check === 11) return false
  return check % 10 === digitsAt(n, 7)
}

/** XI (UK VAT, Northern Ireland): weights 8..2,10,1 over 9 digits; sum mod 97 is 0 (old) or 42 (mod 9755). */
function xiChecksum(n: string): boolean {
  if (!/^\d/.test(n)) return true // GD/HA government and health authority numbers carry no check
  const sum = weightedSum(n.slice(0, 9), [8, 7, 6, 5, 4, 3, 2, 10, 1]) % 97
  return sum === 0 || sum === 42
}

/**
 * VAT number shapes per VIES prefix, with the national check digit where it is publicly and
 * reliably documented. Format-only (no public or stable check algorithm implemented here):
 * BG, CY, CZ, ES, IE, LT, LV. See README in this folder.
 */
export const VAT_RULES: Record<VatPrefix, VatRule> = {
  AT: { pattern: /^U\d{8}$/, format: 'U followed by 8 digits', checksum: atChecksum },
  BE: { pattern: /^[01]\d{9}$/, format: '10 digits starting with 0 or 1', checksum: isCbeChecksumValid },
  BG: { pattern: /^\d{9,10}$/, format: '9 or 10 digits' },
  CY: { pattern: /^\d{8}[A-Z]$/, format: '8 digits followed by a letter' },
  CZ: { pattern: /^\d{8,10}$/, format: '8, 9 or 10 digits' },
  DE: {
    pattern: /^[1-9]\d{8}$/,
    format: '9 digits',
    checksum: (n) => iso7064Mod11_10CheckDigit(n.slice(0, 8)) === digitsAt(n, 8),
  },
  DK: {
    pattern: /^[1-9]\d{7}$/,
    format: '8 digits',
    checksum: (n) => weightedSum(n, [2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0,
  },
  EE: {
    pattern: /^10\d{7}$/,
    format: '9 digits starting with 10',
    checksum: (n) => weightedSum(n, [3, 7, 1, 3, 7, 1, 3, 7, 1]) % 10 === 0,
  },
  EL: { pattern: /^\d{9}$/, format: '9 digits', checksum: elChecksum },
  ES: {
    pattern: /^(?:[A-Z]\d{7}[A-Z0-9]|\d{8}[A-Z])$/,
    format: 'a letter and 7 digits followed by a letter or digit, or 8 digits and a letter',
  },
  FI: {
    pattern: /^\d{8}$/,
    format: '8 digits',
    checksum: (n) => weightedSum(n, [7, 9, 10, 5, 8, 4, 2, 1]) % 11 === 0,
  },
  FR: {
    pattern: /^[0-9A-HJ-NP-Z]{2}\d{9}$/,
    format: '2 check characters followed by the 9-digit SIREN',
    checksum: frChecksum,
  },
  HR: {
    pattern: /^\d{11}$/,
    format: '11 digits',
    checksum: (n) => iso7064Mod11_10CheckDigit(n.slice(0, 10)) === digitsAt(n, 10),
  },
  HU: {
    pattern: /^\d{8}$/,
    format: '8 digits',
    checksum: (n) => weightedSum(n, [9, 7, 3, 1, 9, 7, 3, 1]) % 10 === 0,
  },
  IE: {
    pattern: /^(?:\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/,
    format: '7 digits and 1-2 letters, or the old 8-character form',
  },
  IT: { pattern: /^\d{11}$/, format: '11 digits', checksum: isLuhnValid },
  LT: { pattern: /^(?:\d{9}|\d{12})$/, format: '9 or 12 digits' },
  LU: {
    pattern: /^\d{8}$/,
    format: '8 digits',
    checksum: (n) => modOfDigits(n.slice(0, 6), 89) === Number(n.slice(6)),
  },
  LV: { pattern: /^\d{11}$/, format: '11 digits' },
  MT: {
    pattern: /^[1-9]\d{7}$/,
    format: '8 digits',
    checksum: (n) => weightedSum(n, [3, 4, 6, 7, 8, 9, 10, 1]) % 37 === 0,
  },
  NL: {
    pattern: /^\d{9}B\d{2}$/,
    format: '9 digits, the letter B and 2 digits (NLxxxxxxxxxBxx)',
    checksum: nlChecksum,
  },
  PL: { pattern: /^\d{10}$/, format: '10 digits', checksum: plChecksum },
  PT: { pattern: /^[1-9]\d{8}$/, format: '9 digits', checksum: ptChecksum },
  RO: { pattern: /^[1-9]\d{1,9}$/, format: '2 to 10 digits', checksum: roChecksum },
  SE: {
    pattern: /^\d{10}01$/,
    format: '12 digits ending in 01',
    checksum: (n) => isLuhnValid(n.slice(0, 10)),
  },
  SI: { pattern: /^[1-9]\d{7}$/, format: '8 digits', checksum: siChecksum },
  SK: { pattern: /^[1-9]\d[2346789]\d{7}$/, format: '10 digits', checksum: (n) => modOfDigits(n, 11) === 0 },
  XI: {
    pattern: /^(?:\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/,
    format: '9 or 12 digits (or GD/HA + 3 digits)',
    checksum: xiChecksum,
  },
}

/** Prefixes whose national check digit is verified (the rest are format-only). */
export const VAT_CHECKSUM_PREFIXES = (Object.keys(VAT_RULES) as VatPrefix[]).filter(
  (p) => VAT_RULES[p].checksum,
)

/** Prefixes checked for format only. */
export const VAT_FORMAT_ONLY_PREFIXES = (Object.keys(VAT_RULES) as VatPrefix[]).filter(
  (p) => !VAT_RULES[p].checksum,
)

export type ParsedVatNumber = {
  /** Normalised full number: prefix + number, uppercase, no separators (what VIES shows). */
  vat_number: string
  /** VIES member-state code (EL for Greece, XI for Northern Ireland). */
  prefix: VatPrefix
  /** The part after the prefix, as VIES expects it in its vatNumber field. */
  number: string
  /** ISO 3166-1 country of the prefix (GR for EL, GB for XI). */
  country: CountryCode
  /** True when a national check digit was verified; false for format-only countries. */
  checksum_verified: boolean
}

function isVatPrefix(prefix: string): prefix is VatPrefix {
  return Object.hasOwn(VAT_RULES, prefix)
}

/**
 * Splits a VAT number into its VIES prefix and national part (VIES takes them as two fields).
 * Spaces, dots and dashes are dropped and letters uppercased first. Returns null when the input
 * does not start with a known VIES prefix; no format or checksum test is made here.
 */
export function splitVatNumber(input: string): { prefix: VatPrefix; number: string } | null {
  const compact = input.replace(/[\s.-]/g, '').toUpperCase()
  const prefix = compact.slice(0, 2)
  if (!isVatPrefix(prefix)) return null
  return { prefix, number: compact.slice(2) }
}

/**
 * Validates an EU VAT number. Spec: "vat_number: country prefix plus country format" and entity
 * check "vat_number: with country prefix". The prefix must be a VIES one; the rest must match that
 * country's format and, where implemented (VAT_CHECKSUM_PREFIXES), its check digit. Normalised
 * value drops spaces, dots and dashes and uppercases; Belgian 9-digit numbers get their leading 0.
 */
export function validateVatNumber(input: string): ValidationResult<ParsedVatNumber> {
  const compact = input.replace(/[\s.-]/g, '').toUpperCase()
  if (compact.length === 0) return invalid('must not be empty')
  if (!/^[A-Z]{2}/.test(compact))
    return invalid('must start with the 2-letter country prefix (e.g. NL, BE, DE)')
  const prefix = compact.slice(0, 2)
  if (prefix === 'GR') return invalid('must use the prefix EL for Greece')
  if (prefix === 'GB')
    return invalid('must use a VIES prefix: GB numbers are not in VIES (Northern Ireland traders use XI)')
  if (!isVatPrefix(prefix))
    return invalid(
      `has an unknown country prefix ${prefix} (EU member states use their ISO code, EL for Greece, XI for Northern Ireland)`,
    )
  let number = compact.slice(2)
  if (prefix === 'BE' && /^\d{9}$/.test(number)) number = `0${number}`
  const rule = VAT_RULES[prefix]
  if (!rule.pattern.test(number)) return invalid(`must be ${prefix} followed by ${rule.format}`)
  if (rule.checksum && !rule.checksum(number))
    return invalid(`has an invalid check digit for a ${prefix} VAT number`)
  const country = countryForVatPrefix(prefix)
  if (country === null) return invalid(`has an unknown country prefix ${prefix}`)
  return valid({
    vat_number: prefix + number,
    prefix,
    number,
    country,
    checksum_verified: rule.checksum !== undefined,
  })
}
