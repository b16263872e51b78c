import { ValidationErrorsIBAN, validateIBAN } from 'ibantools'
import { invalid, type ValidationResult, valid } from './result.ts'

export type ParsedIban = {
  /** Electronic form: uppercase, no spaces. */
  iban: string
  /** ISO 3166-1 alpha-2 country of the account (first two characters). */
  country: string
  check_digits: string
  bban: string
}

/**
 * Validates an IBAN. Spec: "iban: structurally valid (country, check digits, length), no
 * spaces". Structure is checked by ibantools: known IBAN country, BBAN length and format for that
 * country, ISO 7064 MOD 97-10 check digits, and the national BBAN checksum where ibantools knows
 * one (e.g. Belgium). Decision: spaces (the printed "NL91 ABNA ..." form) are refused as the spec
 * says, but lowercase letters are accepted and uppercased, because case carries no information
 * in an IBAN and refusing it would only punish copy-paste.
 */
export function validateIban(input: string): ValidationResult<ParsedIban> {
  if (/\s/.test(input))
    return invalid('must be written without spaces (electronic format, e.g. NL91ABNA0417164300)')
  if (!/^[A-Za-z0-9]+$/.test(input)) return invalid('must contain only letters and digits')
  const iban = input.toUpperCase()
  if (!/^[A-Z]{2}\d{2}/.test(iban))
    return invalid('must start with a 2-letter country code and 2 check digits')
  const result = validateIBAN(iban, { allowQRIBAN: true })
  if (!result.valid) return invalid(ibanErrorMessage(result.errorCodes[0]))
  return valid({ iban, country: iban.slice(0, 2), check_digits: iban.slice(2, 4), bban: iban.slice(4) })
}

function ibanErrorMessage(code: ValidationErrorsIBAN | undefined): string {
  switch (code) {
    case ValidationErrorsIBAN.NoIBANCountry:
      return 'has a country code that does not use IBANs'
    case ValidationErrorsIBAN.WrongBBANLength:
      return 'has the wrong length for its country'
    case ValidationErrorsIBAN.WrongBBANFormat:
      return 'does not match the account format of its country'
    case ValidationErrorsIBAN.ChecksumNotNumber:
      return 'must have 2 digits after the country code'
    case ValidationErrorsIBAN.WrongIBANChecksum:
      return 'has invalid check digits (mod 97)'
    case ValidationErrorsIBAN.WrongAccountBankBranchChecksum:
      return 'has an invalid national account check digit'
    default:
      return 'is not a valid IBAN'
  }
}

/**
 * Country of an IBAN (its first two letters) when the IBAN is valid, else null. Used by lead and
 * entity checks to compare the account country with the company country.
 */
export function ibanCountry(input: string): string | null {
  const result = validateIban(input)
  return result.ok ? result.value.country : null
}
