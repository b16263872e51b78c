import type { IdentifierType } from './types.ts'

/**
 * Classifies an identity document by the list's own label (OFAC IDRegDocType text such as
 * "Passport" or "Registration Number", UN TYPE_OF_DOCUMENT, EU identificationTypeCode). Only
 * `registration` identifiers are indexed for registration screening (KYB), so the rule errs on
 * the side of company, tax and trade register numbers; personal documents never land there.
 */
const RULES: ReadonlyArray<readonly [RegExp, IdentifierType]> = [
  [
    /vessel registration|imo|mmsi|aircraft|serial|swift|bic\b|isin|ticker|d-u-n-s|duns|pilot|trademark/i,
    'other',
  ],
  [/passport|pasaporte|passeport|travel document|^travel|seafarer/i, 'passport'],
  [/tax|fiscal|v\.a\.t|\bvat\b/i, 'registration'],
  [
    /electoral|national id|foreign id|identidad|personal id|identity|id card|id no|identification card|cedula|c[eé]dula|d\.n\.i|dni|c\.u\.r\.p|curp|ssn|social security|birth cert|residen|refugee|i\.f\.e|citizen|tazkira|cnp|c\.u\.i\.p|driv|military|immigration|public security|uae identification|credencial|cartilla|visa|^id$|^ssn$|^birthcert$/i,
    'national_id',
  ],
  [
    /regist|company number|incorporation|business|chamber of comm|legal entity|le number|enterprise|organi[sz]ation code|social credit|uscc|trade licen|tradelicen|c\.r\. no|mercantil|tax|fiscal|v\.a\.t|\bvat\b|nit #|ruc #|c\.u\.i\.t|r\.f\.c|\brfc\b|rif #|c\.i\.f|n\.i\.f|\brtn\b|nuit|ogrn|economic register|branch unit|licen[cs]e|permit|charity|global intermediary|bik|c\.u\.i\.|regnumber|government gazette|file number|kpp|inn|okpo/i,
    'registration',
  ],
  [/identification number|^id number/i, 'national_id'],
]

/** The identifier type of a document label; `other` when no rule applies (never guessed as registration). */
export function classifyDocumentLabel(label: string): IdentifierType {
  for (const [pattern, type] of RULES) if (pattern.test(label)) return type
  return 'other'
}
