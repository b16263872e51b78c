import { ValidationErrorsIBAN, validateIBAN } from 'ibantools'
import { mod97OfAlphanumeric } from './check-digits.ts'
import { IBAN_REGISTRY, IBAN_TERRITORIES } from './iban-registry.ts'
import { invalid, type ValidationResult, valid } from './result.ts'

export type ParsedIban = {
  /** Electronic form: uppercase, no spaces. */
  iban: string
  /** ISO 3166-1 alpha-2 country of the account (first two characters). */
  country: string
  check_digits: string
  bban: string
}

type BbanRule = { length: number; pattern: RegExp; structure: string }

/**
 * Turns the registry's BBAN notation ("4!a6!n8!n": 4 letters, 6 digits, 8 digits; c = letter or
 * digit) into the exact length and an anchored pattern. Built once from the generated registry.
 */
function bbanRule(structure: string): BbanRule {
  let length = 0
  let source = ''
  for (const [, count, kind] of structure.matchAll(/(\d+)!([nac])/g)) {
    length += Number(count)
    source += `${kind === 'n' ? '[0-9]' : kind === 'a' ? '[A-Z]' : '[A-Z0-9]'}{${count}}`
  }
  return { length, pattern: new RegExp(`^${source}$`), structure }
}

const BBAN_RULES: ReadonlyMap<string, BbanRule> = new Map(
  Object.entries(IBAN_REGISTRY).map(([country, entry]) => [country, bbanRule(entry.bban)]),
)

const IBAN_NAMES: Record<string, string> = { FR: 'French', FI: 'Finnish' }
const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region' })

/**
 * Validates an IBAN. Spec: "iban: structurally valid (country, check digits, length), no
 * spaces". The country must be in the current SWIFT IBAN registry (iban-registry.ts, generated
 * from it), the length and BBAN structure must be that country's, the ISO 7064 MOD 97-10 check
 * digits must match, and the national BBAN check digit must match where one is known (ibantools:
 * BE, CZ, EE, ES, FR, HR, HU, MC, ME, MK, NO, PL, PT, RS, SI, SK, BA). Territories that bank with
 * the French or Finnish IBAN (Réunion, Åland, …) have no IBAN of their own: their codes are refused
 * with the code to use. Decision: spaces (the printed "NL91 ABNA ..." form) are refused as the spec
 * says, but lowercase letters are accepted and uppercased, because case carries no information in
 * an IBAN and refusing it would only punish copy-paste.
 */
export function validateIban(input: string): ValidationResult<ParsedIban> {
  if (/\s/.test(input))
    return invalid('must be written without spaces (electronic format, e.g. NL91ABNA0417164300)')
  if (!/^[A-Za-z0-9]+$/.test(input)) return invalid('must contain only letters and digits')
  const iban = input.toUpperCase()
  if (!/^[A-Z]{2}\d{2}/.test(iban))
    return invalid('must start with a 2-letter country code and 2 check digits')
  const country = iban.slice(0, 2)
  const uses = IBAN_TERRITORIES[country]
  if (uses !== undefined)
    return invalid(
      `has the country code ${country} (${REGION_NAMES.of(country)}), which issues no IBANs of its own: accounts there have a ${IBAN_NAMES[uses] ?? uses} IBAN, use ${uses}…`,
    )
  const rule = BBAN_RULES.get(country)
  if (rule === undefined)
    return invalid(
      `has the country code ${country}, which does not use IBANs (not in the SWIFT IBAN registry)`,
    )
  const bban = iban.slice(4)
  if (bban.length !== rule.length)
    return invalid(
      `has the wrong length for its country: ${country} IBANs have ${rule.length + 4} characters, this one has ${iban.length}`,
    )
  if (!rule.pattern.test(bban))
    return invalid(
      `does not match the account format of its country (${country}: ${rule.structure}, where n is a digit, a a letter, c a letter or digit)`,
    )
  if (mod97OfAlphanumeric(bban + iban.slice(0, 4)) !== 1)
    return invalid('has check digits that do not match (mod 97)')
  if (validateIBAN(iban).errorCodes.includes(ValidationErrorsIBAN.WrongAccountBankBranchChecksum))
    return invalid('has a national account check digit that does not match')
  return valid({ iban, country, check_digits: iban.slice(2, 4), bban })
}

/**
 * Country of an IBAN (its first two letters) when the IBAN is valid, else null. Used by lead and
 * entity checks to compare the account country with the company country.
 */
export function ibanCountry(input: string): string | null {
  const result = validateIban(input)
  return result.ok ? result.value.country : null
}
