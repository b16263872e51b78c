import { z } from 'zod'

/**
 * The shapes every list parser yields. One entry shape for all lists (OFAC SDN, EU, UN) so the
 * index, the diff and the database store never care which format an entry came from.
 * Entries are plain JSON (no Maps, Dates or class instances) and omit empty optional fields,
 * so they can be stored as JSON rows and an index rebuilt from them at start-up.
 */

export const LIST_KEYS = ['ofac_sdn', 'eu', 'un'] as const
export const ListKeySchema = z.enum(LIST_KEYS).describe('Stable key of a sanctions list')
export type ListKey = z.infer<typeof ListKeySchema>

/** Display names used in screening results (`list` field of a sanctions match, spec: Resources). */
export const LIST_DISPLAY_NAMES: Readonly<Record<ListKey, string>> = {
  ofac_sdn: 'OFAC SDN',
  eu: 'EU Consolidated Financial Sanctions List',
  un: 'UN Security Council Consolidated List',
}

export const EntryTypeSchema = z
  .enum(['person', 'entity', 'vessel', 'aircraft', 'other'])
  .describe('What kind of party the entry designates')
export type EntryType = z.infer<typeof EntryTypeSchema>

export const AliasKindSchema = z
  .enum(['aka', 'fka', 'nka', 'original_script'])
  .describe('a.k.a., f.k.a., n.k.a., or the name written in its original (non-Latin) script')
export type AliasKind = z.infer<typeof AliasKindSchema>

export const AliasQualitySchema = z
  .enum(['strong', 'weak', 'good', 'low'])
  .describe("The list's own quality mark: OFAC/EU strong or weak, UN Good or Low")
export type AliasQuality = z.infer<typeof AliasQualitySchema>

export const SanctionsAliasSchema = z
  .object({
    name: z.string().min(1).describe('The alias as published'),
    kind: AliasKindSchema.optional(),
    quality: AliasQualitySchema.optional(),
  })
  .strict()
export type SanctionsAlias = z.infer<typeof SanctionsAliasSchema>

export const IdentifierTypeSchema = z
  .enum(['crypto_address', 'registration', 'passport', 'national_id', 'other'])
  .describe('Kind of identifier; registration covers company, tax and trade registration numbers')
export type IdentifierType = z.infer<typeof IdentifierTypeSchema>

export const SanctionsIdentifierSchema = z
  .object({
    type: IdentifierTypeSchema,
    value: z.string().min(1).describe('The identifier as published (addresses keep their letter case)'),
    currency: z
      .string()
      .optional()
      .describe('Currency code of a crypto address as the list gives it (ETH, XBT)'),
    country: z
      .string()
      .length(2)
      .optional()
      .describe('ISO 3166-1 alpha-2 country that issued the identifier'),
    label: z.string().optional().describe("The list's own name for the document type (e.g. 'Passport')"),
  })
  .strict()
export type SanctionsIdentifier = z.infer<typeof SanctionsIdentifierSchema>

export const SanctionsEntrySchema = z
  .object({
    list: ListKeySchema,
    entry_id: z
      .string()
      .min(1)
      .describe('Stable id within the list: OFAC FixedRef / ent_num, UN DATAID, EU logicalId / legacy Id'),
    entry_type: EntryTypeSchema,
    name: z.string().min(1).describe('Primary name; OFAC persons as "Last, First Middle" like the SDN CSV'),
    aliases: z.array(SanctionsAliasSchema).describe('Every other published name, deduplicated'),
    programmes: z
      .array(z.string())
      .describe('Sanctions programmes (OFAC programs, EU programmes, UN list types)'),
    countries: z.array(z.string().length(2)).describe('ISO 3166-1 alpha-2 countries linked to the entry'),
    listed_on: z.string().nullable().describe('Listing date YYYY-MM-DD where the list gives one'),
    identifiers: z.array(SanctionsIdentifierSchema).describe('Crypto addresses, registration and ID numbers'),
    birth_dates: z
      .array(z.string())
      .optional()
      .describe(
        'Dates of birth as the list gives them: YYYY-MM-DD, YYYY-MM or YYYY, or a range FROM/TO of those (ISO 8601 interval); absent when the list gives none',
      ),
    nationalities: z
      .array(z.string().length(2))
      .optional()
      .describe('ISO alpha-2 nationalities and citizenships the list gives (a subset of countries)'),
    reference: z
      .string()
      .optional()
      .describe("The list's public reference where it differs from entry_id (UN QDi.317, EU EU.27.28)"),
  })
  .strict()
export type SanctionsEntry = z.infer<typeof SanctionsEntrySchema>

export const LIST_FORMATS = [
  'ofac_sdn_advanced_xml',
  'ofac_sdn_csv',
  'un_xml',
  'eu_fsf_xml',
  'eu_legacy_xml',
] as const
export const ListFormatSchema = z.enum(LIST_FORMATS).describe('Source file format of a list')
export type ListFormat = z.infer<typeof ListFormatSchema>

/** The list key each format belongs to. */
export const LIST_KEY_OF_FORMAT: Readonly<Record<ListFormat, ListKey>> = {
  ofac_sdn_advanced_xml: 'ofac_sdn',
  ofac_sdn_csv: 'ofac_sdn',
  un_xml: 'un',
  eu_fsf_xml: 'eu',
  eu_legacy_xml: 'eu',
}

export interface ParsedList {
  list_key: ListKey
  /** The list's own publication date (YYYY-MM-DD) when the file carries one. */
  publication_date: string | null
  format: ListFormat
  entries: SanctionsEntry[]
  entry_count: number
  /** Data-quality notes that did not stop the parse (e.g. cut OFAC CSV remarks). */
  warnings?: string[]
}
