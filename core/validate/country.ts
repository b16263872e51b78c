import { type CountryCode, ISO_3166_ALPHA2_CODES } from './iso-3166-alpha2.ts'
import { invalid, type ValidationResult, valid } from './result.ts'

const ASSIGNED = new Set<string>(ISO_3166_ALPHA2_CODES)

/** Codes that look like alpha-2 but are reserved, not countries; callers often send them. */
const RESERVED_HINTS: Record<string, string> = {
  UK: 'use GB for the United Kingdom',
  EL: 'use GR for Greece (EL is only the VAT prefix)',
  EU: 'the European Union is not a country',
  XK: 'XK (Kosovo) is user-assigned, not an ISO 3166-1 code',
}

/** The 27 EU member states (since 2020-02-01, after the United Kingdom left). */
export const EU_MEMBER_STATES = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
] as const satisfies readonly CountryCode[]

/** EEA members outside the EU. */
export const EEA_NON_EU_STATES = ['IS', 'LI', 'NO'] as const satisfies readonly CountryCode[]

const EU = new Set<string>(EU_MEMBER_STATES)
const EEA = new Set<string>([...EU_MEMBER_STATES, ...EEA_NON_EU_STATES])

/**
 * Validates a country code. Spec: "Validation rules behind 422 - country: two uppercase
 * letters, ISO 3166-1 alpha-2 (alpha-3 and lowercase rejected)". Only the 249 assigned codes
 * pass, so reserved look-alikes (UK, EL, EU) are refused with a hint.
 */
export function validateCountry(input: string): ValidationResult<CountryCode> {
  if (/^[A-Za-z]{3}$/.test(input))
    return invalid('must be an ISO 3166-1 alpha-2 code (2 letters), not alpha-3')
  if (/^[a-z]{2}$/i.test(input) && input !== input.toUpperCase()) {
    const upper = input.toUpperCase()
    return invalid(`must be uppercase ISO 3166-1 alpha-2${ASSIGNED.has(upper) ? ` (${upper})` : ''}`)
  }
  if (!/^[A-Z]{2}$/.test(input)) return invalid('must be two uppercase letters (ISO 3166-1 alpha-2, e.g. NL)')
  if (!ASSIGNED.has(input)) {
    const hint = RESERVED_HINTS[input]
    return invalid(`is not an assigned ISO 3166-1 alpha-2 code${hint ? `: ${hint}` : ''}`)
  }
  return valid(input as CountryCode)
}

/** True when the code is an assigned ISO 3166-1 alpha-2 code (exact, uppercase). */
export function isCountryCode(input: string): input is CountryCode {
  return ASSIGNED.has(input)
}

/** EU-27 membership, e.g. to decide whether VIES can be asked (spec: EU VAT/VIES). */
export function isEuMemberState(code: string): boolean {
  return EU.has(code)
}

/** EU-27 plus Iceland, Liechtenstein and Norway. */
export function isEeaMemberState(code: string): boolean {
  return EEA.has(code)
}

/**
 * VAT prefix that VIES uses for a country: the ISO code except Greece (EL). Northern Ireland
 * traders use XI, which is not an ISO country; pass `{ northernIreland: true }` with GB for it.
 * Returns null for countries VIES does not cover.
 */
export function vatPrefixForCountry(
  code: string,
  options: { northernIreland?: boolean } = {},
): string | null {
  if (code === 'GB') return options.northernIreland ? 'XI' : null
  if (code === 'GR') return 'EL'
  return EU.has(code) ? code : null
}

/** Country of a VIES VAT prefix (EL -> GR, XI -> GB), or null for a prefix VIES does not use. */
export function countryForVatPrefix(prefix: string): CountryCode | null {
  if (prefix === 'EL') return 'GR'
  if (prefix === 'XI') return 'GB'
  if (prefix === 'GR') return null
  return EU.has(prefix) ? (prefix as CountryCode) : null
}
