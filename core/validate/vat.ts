import { countryForVatPrefix } from './country.ts'
import type { CountryCode } from './iso-3166-alpha2.ts'
import { invalid, type ValidationResult, valid } from './result.ts'
import {
  atCheck,
  beCheck,
  bgCheck,
  cyCheck,
  czCheck,
  deCheck,
  dkCheck,
  eeCheck,
  elCheck,
  esCheck,
  fiCheck,
  frCheck,
  hrCheck,
  huCheck,
  ieCheck,
  itCheck,
  ltCheck,
  luCheck,
  lvCheck,
  mtCheck,
  nlCheck,
  plCheck,
  ptCheck,
  roCheck,
  seCheck,
  siCheck,
  skCheck,
  type VatCheck,
  xiCheck,
} from './vat-checksums.ts'

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
  /** National check-digit (and embedded date or component) test over the part after the prefix. */
  check: VatCheck
}

/**
 * VAT number shapes per VIES prefix, each with its national check digit. The algorithms and
 * shapes follow python-stdnum (stdnum/<cc>/vat.py), the reference implementation the test
 * numbers come from; see vat-checksums.ts for each one.
 */
export const VAT_RULES: Record<VatPrefix, VatRule> = {
  AT: { pattern: /^U\d{8}$/, format: 'U followed by 8 digits', check: atCheck },
  BE: { pattern: /^[01]\d{9}$/, format: '10 digits starting with 0 or 1', check: beCheck },
  BG: { pattern: /^\d{9,10}$/, format: '9 or 10 digits', check: bgCheck },
  CY: { pattern: /^\d{8}[A-Z]$/, format: '8 digits followed by a letter', check: cyCheck },
  CZ: { pattern: /^\d{8,10}$/, format: '8, 9 or 10 digits', check: czCheck },
  DE: { pattern: /^[1-9]\d{8}$/, format: '9 digits', check: deCheck },
  DK: { pattern: /^[1-9]\d{7}$/, format: '8 digits', check: dkCheck },
  EE: { pattern: /^10\d{7}$/, format: '9 digits starting with 10', check: eeCheck },
  EL: { pattern: /^\d{9}$/, format: '9 digits', check: elCheck },
  ES: {
    pattern: /^(?:[A-Z]\d{7}[A-Z0-9]|\d{8}[A-Z])$/,
    format: 'a letter and 7 digits followed by a letter or digit, or 8 digits and a letter',
    check: esCheck,
  },
  FI: { pattern: /^\d{8}$/, format: '8 digits', check: fiCheck },
  FR: {
    pattern: /^[0-9A-HJ-NP-Z]{2}\d{9}$/,
    format: '2 check characters (digits or letters other than I and O) followed by the 9-digit SIREN',
    check: frCheck,
  },
  HR: { pattern: /^\d{11}$/, format: '11 digits', check: hrCheck },
  HU: { pattern: /^\d{8}$/, format: '8 digits', check: huCheck },
  IE: {
    pattern: /^(?:\d{7}[A-W]{1,2}|\d[A-Z+*]\d{5}[A-W]{1,2})$/,
    format: '7 digits and 1 or 2 letters, or the old form (digit, letter, 5 digits, letter)',
    check: ieCheck,
  },
  IT: { pattern: /^\d{11}$/, format: '11 digits', check: itCheck },
  LT: { pattern: /^(?:\d{9}|\d{12})$/, format: '9 or 12 digits', check: ltCheck },
  LU: { pattern: /^\d{8}$/, format: '8 digits', check: luCheck },
  LV: { pattern: /^\d{11}$/, format: '11 digits', check: lvCheck },
  MT: { pattern: /^[1-9]\d{7}$/, format: '8 digits', check: mtCheck },
  NL: {
    pattern: /^\d{9}B\d{2}$/,
    format: '9 digits, the letter B and 2 digits (NLxxxxxxxxxBxx)',
    check: nlCheck,
  },
  PL: { pattern: /^\d{10}$/, format: '10 digits', check: plCheck },
  PT: { pattern: /^[1-9]\d{8}$/, format: '9 digits', check: ptCheck },
  RO: {
    pattern: /^(?:[1-9]\d{1,9}|[1-9]\d{12})$/,
    format: '2 to 10 digits (CUI) or the 13-digit personal code (CNP)',
    check: roCheck,
  },
  SE: { pattern: /^\d{10}01$/, format: '12 digits ending in 01', check: seCheck },
  SI: { pattern: /^[1-9]\d{7}$/, format: '8 digits', check: siCheck },
  SK: { pattern: /^\d{10}$/, format: '10 digits', check: skCheck },
  XI: {
    pattern: /^(?:\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2}|GD8888[0-4]\d{4}|HA8888[5-9]\d{4})$/,
    format:
      '9 or 12 digits, or GD000-GD499 (government departments) or HA500-HA999 (health authorities), optionally as GD8888/HA8888 + 5 digits',
    check: xiCheck,
  },
}

export type ParsedVatNumber = {
  /** Normalised full number: prefix + number, uppercase, no separators (what VIES shows). */
  vat_number: string
  /** VIES member-state code (EL for Greece, XI for Northern Ireland). */
  prefix: VatPrefix
  /** The part after the prefix, as VIES expects it in its vatNumber field. */
  number: string
  /** ISO 3166-1 country of the prefix (GR for EL, GB for XI). */
  country: CountryCode
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
 * country's format and pass its national check digit (as python-stdnum computes it). Normalised
 * value drops spaces, dots and dashes and uppercases; old short forms get their leading zeros back
 * as the registries print them today (Belgian 9-digit and Greek 8-digit numbers, Dutch numbers
 * with fewer than 9 digits before the B).
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
  if (prefix === 'EL' && /^\d{8}$/.test(number)) number = `0${number}`
  if (prefix === 'NL' && /^\d{1,8}B\d{2}$/.test(number)) number = number.padStart(12, '0')
  const rule = VAT_RULES[prefix]
  if (!rule.pattern.test(number)) return invalid(`must be ${prefix} followed by ${rule.format}`)
  const check = rule.check(number)
  if (check !== true) return invalid(`${check} (${prefix} VAT number)`)
  const country = countryForVatPrefix(prefix)
  if (country === null) return invalid(`has an unknown country prefix ${prefix}`)
  return valid({
    vat_number: prefix + number,
    prefix,
    number,
    country,
  })
}
