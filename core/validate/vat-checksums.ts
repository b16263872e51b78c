import { isCbeChecksumValid } from './cbe.ts'
import {
  isCalendarDate,
  isLuhnValid,
  iso7064Mod11_10CheckDigit,
  luhnCheckDigit,
  mod97OfAlphanumeric,
  modOfDigits,
  weightedSum,
} from './check-digits.ts'

/**
 * National VAT check-digit algorithms, one per VIES prefix, as python-stdnum implements them
 * (stdnum/<cc>/vat.py and the modules it delegates to). Each takes the part after the prefix,
 * already matched against the country's shape, and returns `true` when the number is
 * consistent, or a message completing "<field> ..." saying what is wrong.
 */
export type VatCheck = (number: string) => true | string

const CHECK_DIGITS = 'has check digits that do not match'

const digitAt = (s: string, i: number) => s.charCodeAt(i) - 48

/** True, or the standard "has check digits that do not match" message. */
function matches(ok: boolean): true | string {
  return ok || CHECK_DIGITS
}

/** AT: "U" + 8 digits; the 8th digit is (6 - Luhn sum of digits 1-7) mod 10 (BMF algorithm). */
export function atCheck(n: string): true | string {
  const d = n.slice(1)
  let sum = 0
  for (let i = 0; i < 7; i++) {
    let v = digitAt(d, i)
    if (i % 2 === 1) {
      v *= 2
      if (v > 9) v -= 9
    }
    sum += v
  }
  return matches((96 - sum) % 10 === digitAt(d, 7))
}

/** BE: the enterprise number's mod-97 check (97 - first 8 digits mod 97). */
export function beCheck(n: string): true | string {
  return matches(isCbeChecksumValid(n))
}

/** BG legal entities (9 digits): weights 1..8, or 3..10 when the first sum leaves 10. */
function bgLegalCheckDigit(eight: string): number {
  let check = 0
  for (let i = 0; i < 8; i++) check += (i + 1) * digitAt(eight, i)
  check %= 11
  if (check === 10) {
    check = 0
    for (let i = 0; i < 8; i++) check += (i + 3) * digitAt(eight, i)
    check %= 11
  }
  return check % 10
}

/** BG physical persons: the EGN (birth date in the first 6 digits, weights 2,4,8,5,10,9,7,3,6). */
export function isBulgarianEgn(n: string): boolean {
  let year = 1900 + Number(n.slice(0, 2))
  let month = Number(n.slice(2, 4))
  const day = Number(n.slice(4, 6))
  if (month > 40) {
    year += 100
    month -= 40
  } else if (month > 20) {
    year -= 100
    month -= 20
  }
  if (!isCalendarDate(year, month, day)) return false
  return (weightedSum(n, [2, 4, 8, 5, 10, 9, 7, 3, 6]) % 11) % 10 === digitAt(n, 9)
}

/** BG foreigners: the PNF (weights 21,19,17,13,11,9,7,3,1, sum mod 10). */
function isBulgarianPnf(n: string): boolean {
  return weightedSum(n, [21, 19, 17, 13, 11, 9, 7, 3, 1]) % 10 === digitAt(n, 9)
}

/** BG others (10 digits): (11 - weighted sum mod 11) mod 11 with weights 4,3,2,7,6,5,4,3,2; 10 never valid. */
function isBulgarianOther(n: string): boolean {
  return (11 - (weightedSum(n, [4, 3, 2, 7, 6, 5, 4, 3, 2]) % 11)) % 11 === digitAt(n, 9)
}

/** BG: 9 digits (legal entity) or 10 digits (EGN of a person, PNF of a foreigner, or "other"). */
export function bgCheck(n: string): true | string {
  if (n.length === 9) return matches(bgLegalCheckDigit(n) === digitAt(n, 8))
  return matches(isBulgarianEgn(n) || isBulgarianPnf(n) || isBulgarianOther(n))
}

/** CY: 8 digits and a check letter; digits in even positions are translated, sum mod 26 is the letter. */
export function cyCheck(n: string): true | string {
  if (n.startsWith('12')) return 'must not start with 12 (not a Cypriot VAT number)'
  const translation = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21]
  let sum = 0
  for (let i = 0; i < 8; i++) sum += i % 2 === 0 ? (translation[digitAt(n, i)] ?? 0) : digitAt(n, i)
  return matches(String.fromCharCode(65 + (sum % 26)) === n[8])
}

/**
 * CZ birth number (rodné číslo): a birth date (month + 50 for women, + 20 for overflowing serials
 * since 2004), 9 digits until 1953 without a check digit, 10 digits since then with
 * (first 9 digits mod 11) mod 10 as the last.
 */
function czBirthNumberCheck(n: string): true | string {
  let year = 1900 + Number(n.slice(0, 2))
  const month = (Number(n.slice(2, 4)) % 50) % 20
  const day = Number(n.slice(4, 6))
  if (n.length === 9) {
    if (year >= 1980) year -= 100
    if (year > 1953) return 'is a 9-digit birth number, which was only issued until 1953'
  } else if (year < 1954) year += 100
  if (!isCalendarDate(year, month, day)) return 'does not contain a valid birth date'
  if (n.length === 10) return matches(modOfDigits(n.slice(0, 9), 11) % 10 === digitAt(n, 9))
  return true
}

/** CZ: 8 digits (legal entity), 9 digits starting with 6 (special), or a 9/10-digit birth number. */
export function czCheck(n: string): true | string {
  if (n.length === 8) {
    if (n.startsWith('9')) return 'must not start with 9 (8-digit legal-entity numbers)'
    const check = (11 - (weightedSum(n, [8, 7, 6, 5, 4, 3, 2]) % 11)) % 11
    return matches((check || 1) % 10 === digitAt(n, 7))
  }
  if (n.length === 9 && n.startsWith('6')) {
    const sum = weightedSum(n.slice(1), [8, 7, 6, 5, 4, 3, 2]) % 11
    return matches((((8 - ((10 - sum) % 11)) % 10) + 10) % 10 === digitAt(n, 8))
  }
  return czBirthNumberCheck(n)
}

/** DE: ISO 7064 MOD 11,10. */
export function deCheck(n: string): true | string {
  return matches(iso7064Mod11_10CheckDigit(n.slice(0, 8)) === digitAt(n, 8))
}

/** DK: weights 2,7,6,5,4,3,2,1; sum mod 11 is 0. */
export function dkCheck(n: string): true | string {
  return matches(weightedSum(n, [2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0)
}

/** EE: weights 3,7,1 repeated; sum mod 10 is 0. */
export function eeCheck(n: string): true | string {
  return matches(weightedSum(n, [3, 7, 1, 3, 7, 1, 3, 7, 1]) % 10 === 0)
}

/** EL: 9 digits; check = (sum of d_i * 2^(8-i), i < 8) mod 11 mod 10. */
export function elCheck(n: string): true | string {
  let sum = 0
  for (let i = 0; i < 8; i++) sum = sum * 2 + digitAt(n, i)
  return matches(((sum * 2) % 11) % 10 === digitAt(n, 8))
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE'

/**
 * ES: the NIF in its three forms. DNI (8 digits + letter, letter = number mod 23), NIE
 * (X/Y/Z read as 0/1/2, then the DNI rule), K/L/M (the DNI letter over the 7 digits), and the
 * CIF of legal entities (type letter, 7 digits, control that is the Luhn digit of the 7 digits
 * or the letter JABCDEFGHI at that index; both are in use, so both are accepted).
 */
export function esCheck(n: string): true | string {
  const first = n.charAt(0)
  const last = n.charAt(8)
  if ('KLM'.includes(first)) return matches(DNI_LETTERS[Number(n.slice(1, 8)) % 23] === last)
  if (/\d/.test(first)) {
    if (!/^\d{8}$/.test(n.slice(0, 8))) return 'must be 8 digits and a letter for a DNI-form number'
    return matches(DNI_LETTERS[Number(n.slice(0, 8)) % 23] === last)
  }
  if ('XYZ'.includes(first))
    return matches(DNI_LETTERS[Number(String('XYZ'.indexOf(first)) + n.slice(1, 8)) % 23] === last)
  if (!'ABCDEFGHJNPQRSUVW'.includes(first))
    return `has an unknown entity type letter ${first} (CIF letters are A-H, J, N, P-S, U-W)`
  const digit = luhnCheckDigit(n.slice(1, 8))
  return matches(last === String(digit) || last === 'JABCDEFGHI'[digit])
}

/** FI: weights 7,9,10,5,8,4,2,1; sum mod 11 is 0. */
export function fiCheck(n: string): true | string {
  return matches(weightedSum(n, [7, 9, 10, 5, 8, 4, 2, 1]) % 11 === 0)
}

const FR_KEY_ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ'

/**
 * FR: 2-character key + 9-digit SIREN. The SIREN passes Luhn (except Monaco's numbers, which
 * start with 000 and are not SIRENs). A numeric key is (12 + 3 * (SIREN mod 97)) mod 97; an
 * alphanumeric key encodes a check value c (from the two key characters' positions in
 * 0-9A-Z without I and O) such that (SIREN + 1 + c div 11) mod 11 = c mod 11.
 */
export function frCheck(n: string): true | string {
  const siren = n.slice(2)
  if (!siren.startsWith('000') && !isLuhnValid(siren))
    return 'has a SIREN whose Luhn check digit does not match'
  const key = n.slice(0, 2)
  if (/^\d{2}$/.test(key)) return matches(Number(key) === (12 + 3 * modOfDigits(siren, 97)) % 97)
  const a = FR_KEY_ALPHABET.indexOf(key.charAt(0))
  const b = FR_KEY_ALPHABET.indexOf(key.charAt(1))
  const check = a < 10 ? a * 24 + b - 10 : a * 34 + b - 100
  return matches((modOfDigits(siren, 11) + 1 + Math.floor(check / 11)) % 11 === check % 11)
}

/** HR: the OIB, ISO 7064 MOD 11,10. */
export function hrCheck(n: string): true | string {
  return matches(iso7064Mod11_10CheckDigit(n.slice(0, 10)) === digitAt(n, 10))
}

/** HU: weights 9,7,3,1 repeated; sum mod 10 is 0. */
export function huCheck(n: string): true | string {
  return matches(weightedSum(n, [9, 7, 3, 1, 9, 7, 3, 1]) % 10 === 0)
}

/** IE letters: W stands for 0, A-V for 1-22. */
const IE_ALPHABET = 'WABCDEFGHIJKLMNOPQRSTUV'

/** IE check letter over 7 digits and an optional second letter (weighted 9 by its value). */
function ieCheckLetter(sevenDigits: string, second: string): string {
  const digits = sevenDigits.padStart(7, '0')
  const sum = weightedSum(digits, [8, 7, 6, 5, 4, 3, 2]) + 9 * (second ? IE_ALPHABET.indexOf(second) : 0)
  return IE_ALPHABET.charAt(sum % 23)
}

/**
 * IE: new form, 7 digits + check letter (+ a second letter weighted 9 times its value, W = 0);
 * old form, digit + letter or + or * + 5 digits + check letter, checked as the number
 * 0 + digits 3-7 + digit 1.
 */
export function ieCheck(n: string): true | string {
  if (/^\d{7}/.test(n)) return matches(n.charAt(7) === ieCheckLetter(n.slice(0, 7), n.slice(8)))
  return matches(n.charAt(7) === ieCheckLetter(n.slice(2, 7) + n.charAt(0), ''))
}

/** IT: Luhn over the 11 digits, a non-zero company number and a known office code (digits 8-10). */
export function itCheck(n: string): true | string {
  if (/^0{7}/.test(n)) return 'must not start with 7 zeros'
  const office = n.slice(7, 10)
  if (!((office >= '001' && office <= '100') || ['120', '121', '888', '999'].includes(office)))
    return `has an unknown tax office code ${office} in digits 8-10`
  return matches(isLuhnValid(n))
}

/** LT: weights 1..9 repeating (again from 3 when the sum leaves 10); a fixed 1 before the check digit. */
export function ltCheck(n: string): true | string {
  if (n.charAt(n.length - 2) !== '1')
    return `must have the digit 1 in position ${n.length - 1} (${n.length}-digit Lithuanian numbers)`
  const body = n.slice(0, -1)
  let check = 0
  for (let i = 0; i < body.length; i++) check += (1 + (i % 9)) * digitAt(body, i)
  check %= 11
  if (check === 10) {
    check = 0
    for (let i = 0; i < body.length; i++) check += (1 + ((i + 2) % 9)) * digitAt(body, i)
  }
  return matches((check % 11) % 10 === digitAt(n, n.length - 1))
}

/** LU: the first 6 digits mod 89 are the last 2. */
export function luCheck(n: string): true | string {
  return matches(modOfDigits(n.slice(0, 6), 89) === Number(n.slice(6)))
}

/**
 * LV: legal entities (first digit 4-9) have weights 9,1,4,8,3,10,2,5,7,6,1 with sum mod 11 = 3;
 * natural persons carry their personal code: from 2017 "32" + digits, before that a ddmmyy birth
 * date with the century in the 7th digit; both end in 1 + weighted sum (10,5,8,4,2,1,6,3,7,9)
 * mod 11 mod 10.
 */
export function lvCheck(n: string): true | string {
  if (n.charAt(0) > '3') return matches(weightedSum(n, [9, 1, 4, 8, 3, 10, 2, 5, 7, 6, 1]) % 11 === 3)
  if (!n.startsWith('32')) {
    const year = 1800 + digitAt(n, 6) * 100 + Number(n.slice(4, 6))
    if (!isCalendarDate(year, Number(n.slice(2, 4)), Number(n.slice(0, 2))))
      return 'does not contain a valid birth date (personal code ddmmyy-Cnnnn)'
  }
  return matches(((1 + weightedSum(n, [10, 5, 8, 4, 2, 1, 6, 3, 7, 9])) % 11) % 10 === digitAt(n, 10))
}

/** MT: weights 3,4,6,7,8,9,10,1; sum mod 37 is 0. */
export function mtCheck(n: string): true | string {
  return matches(weightedSum(n, [3, 4, 6, 7, 8, 9, 10, 1]) % 37 === 0)
}

/** NL: the 9 digits pass the 11-proof (RSIN), or the whole "NL...B.." string passes MOD 97-10. */
export function nlCheck(n: string): true | string {
  const nine = n.slice(0, 9)
  if (/^0+$/.test(nine)) return 'must not be all zeros before the B'
  if (n.slice(10) === '00') return 'must not end in B00'
  const elevenProof = weightedSum(nine, [9, 8, 7, 6, 5, 4, 3, 2]) - digitAt(nine, 8)
  return matches(elevenProof % 11 === 0 || mod97OfAlphanumeric(`NL${n}`) === 1)
}

/** PL: weights 6,5,7,2,3,4,5,6,7; the remainder mod 11 is the 10th digit (10 never valid). */
export function plCheck(n: string): true | string {
  return matches(weightedSum(n, [6, 5, 7, 2, 3, 4, 5, 6, 7]) % 11 === digitAt(n, 9))
}

/** PT: weights 9..2; check = (11 - sum mod 11), 10 and 11 become 0. */
export function ptCheck(n: string): true | string {
  return matches(((11 - (weightedSum(n, [9, 8, 7, 6, 5, 4, 3, 2]) % 11)) % 11) % 10 === digitAt(n, 8))
}

/** Romanian county codes of a CNP (digits 8-9): 01-48, 51, 52, 70, 80-83. */
function isRomanianCounty(code: number): boolean {
  return (code >= 1 && code <= 48) || code === 51 || code === 52 || code === 70 || (code >= 80 && code <= 83)
}

/**
 * RO personal numeric code (CNP, 13 digits): sex/century digit, yymmdd birth date, county,
 * serial, and a check digit with key 279146358279 (sum mod 11, 10 becomes 1).
 */
function roCnpCheck(n: string): true | string {
  const centuries: Record<string, number> = {
    '1': 1900,
    '2': 1900,
    '3': 1800,
    '4': 1800,
    '5': 2000,
    '6': 2000,
  }
  const year = (centuries[n.charAt(0)] ?? 1900) + Number(n.slice(1, 3))
  if (!isCalendarDate(year, Number(n.slice(3, 5)), Number(n.slice(5, 7))))
    return 'does not contain a valid birth date (13-digit personal code)'
  if (!isRomanianCounty(Number(n.slice(7, 9))))
    return `has an unknown county code ${n.slice(7, 9)} (13-digit personal code)`
  const check = weightedSum(n, [2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9]) % 11
  return matches((check === 10 ? 1 : check) === digitAt(n, 12))
}

/** RO: a 2-10 digit CUI (left-padded to 10; (10 * weighted sum 7,5,3,2,1,7,5,3,2) mod 11 mod 10), or a CNP. */
export function roCheck(n: string): true | string {
  if (n.length === 13) return roCnpCheck(n)
  const padded = n.padStart(10, '0')
  return matches(((10 * weightedSum(padded, [7, 5, 3, 2, 1, 7, 5, 3, 2])) % 11) % 10 === digitAt(padded, 9))
}

/** SE: the 10-digit organisation number passes Luhn; the suffix 01 is fixed. */
export function seCheck(n: string): true | string {
  return matches(isLuhnValid(n.slice(0, 10)))
}

/** SI: weights 8..2; check = 11 - sum mod 11, with 10 -> 0 and 11 impossible. */
export function siCheck(n: string): true | string {
  const check = 11 - (weightedSum(n, [8, 7, 6, 5, 4, 3, 2]) % 11)
  return matches(check !== 11 && check % 10 === digitAt(n, 7))
}

/**
 * SK: a legal-entity number (first digit not 0, third digit 2, 3, 4, 7, 8 or 9) whose 10 digits
 * are divisible by 11, or a 10-digit birth number (rodné číslo, the Czech/Slovak scheme), which
 * sole traders use as their tax number.
 */
export function skCheck(n: string): true | string {
  if (czBirthNumberCheck(n) === true) return true
  if (n.startsWith('0') || !'234789'.includes(n.charAt(2)))
    return 'must start with a non-zero digit and have 2, 3, 4, 7, 8 or 9 as its third digit, or be a valid birth number'
  return matches(modOfDigits(n, 11) === 0)
}

/**
 * XI (UK VAT for Northern Ireland): 9 digits (12 with a branch suffix) whose weighted sum
 * (8..2, 10, 1) mod 97 is 0, or for numbers from 100 upwards also 42 or 55 (the 9755 series);
 * GD000-GD499 (government departments) and HA500-HA999 (health authorities) carry no check;
 * their 11-character forms GD8888nnncc / HA8888nnncc carry nnn mod 97 as cc.
 */
export function xiCheck(n: string): true | string {
  if (n.length === 5) return true // the shape already restricts GD to 0-4xx and HA to 5-9xx
  if (n.length === 11) return matches(Number(n.slice(6, 9)) % 97 === Number(n.slice(9, 11)))
  const sum = weightedSum(n.slice(0, 9), [8, 7, 6, 5, 4, 3, 2, 10, 1]) % 97
  return matches(sum === 0 || (Number(n.slice(0, 3)) >= 100 && (sum === 42 || sum === 55)))
}
