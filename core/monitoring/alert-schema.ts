import { z } from 'zod'
import { MatchDismissalSchema } from '../sanctions/dismissal-store.ts'
import { EntryTypeSchema, type ListKey, ListKeySchema } from '../sanctions/types.ts'

/**
 * The compliance alert: one change of the OFAC SDN, EU or UN list, optionally with what of a
 * key's it touches (spec: GET /v1/compliance/alerts; Events rule 3). The same object is the
 * `data` of a `sanctions.match.new` webhook delivery.
 */

export const JURISDICTIONS = ['us', 'eu', 'un'] as const
export const JurisdictionSchema = z.enum(JURISDICTIONS).describe('us (OFAC SDN), eu (EU list), un (UN list)')
export type Jurisdiction = z.infer<typeof JurisdictionSchema>

export const JURISDICTION_OF_LIST: Readonly<Record<ListKey, Jurisdiction>> = {
  ofac_sdn: 'us',
  eu: 'eu',
  un: 'un',
}

export const SEVERITIES = ['informational', 'low', 'medium', 'high', 'critical'] as const
export const SeveritySchema = z
  .enum(SEVERITIES)
  .describe('informational, low, medium, high or critical (rule in docs/sanctions.md)')
export type Severity = z.infer<typeof SeveritySchema>

export const EVENT_TYPES = ['entry_added', 'entry_removed', 'entry_changed'] as const
export const AlertEventTypeSchema = z
  .enum(EVENT_TYPES)
  .describe('The kind of list change: an entry was added (new listing), removed (delisted) or changed')
export type AlertEventType = z.infer<typeof AlertEventTypeSchema>

export const MatchKindSchema = z
  .enum(['crypto_address', 'registration', 'name_exact', 'name_tokens'])
  .describe(
    'How the entry matched: wallet address, registration number, exact name, or same words in another order',
  )
export type MatchKind = z.infer<typeof MatchKindSchema>

export const SubjectSchema = z
  .object({
    type: z.enum(['name', 'wallet', 'registration']).describe('What the key checked or watches'),
    value: z.string().describe('The name, wallet address or registration number as the key gave it'),
    country: z.string().nullable().describe('Country given with it, if any'),
    chain: z.string().nullable().describe('Chain of a wallet, if given'),
  })
  .strict()
export type Subject = z.infer<typeof SubjectSchema>

export const AlertMatchSchema = z
  .object({
    basis: z
      .enum(['checked', 'watchlist'])
      .describe('checked: a stored check of this key; watchlist: a watchlist entry'),
    kind: MatchKindSchema,
    score: z.number().min(0).max(1).describe('Strength of the match, 0-1 (the screening scores)'),
    matched_name: z.string().describe('The listed name or alias that matched (primary name for identifiers)'),
    matched_value: z
      .string()
      .describe('The listed value that matched (name, address or number as published)'),
    subject: SubjectSchema,
    watchlist_id: z.string().nullable().describe('The watchlist entry, when basis is watchlist'),
    check_id: z
      .string()
      .nullable()
      .describe('The newest stored check with this subject, when basis is checked'),
    dismissal: MatchDismissalSchema.optional().describe(
      'Present when the key had dismissed this match and the list entry changed since: the dismissal is re-opened (status reopened, "list entry changed"). A dismissed match whose entry did not change raises no alert',
    ),
  })
  .strict()
export type AlertMatch = z.infer<typeof AlertMatchSchema>

export const AlertEntrySchema = z
  .object({
    entry_id: z.string().describe('Id of the entry within its list (OFAC FixedRef, UN DATAID, EU logicalId)'),
    entry_type: EntryTypeSchema,
    name: z.string().describe('Primary name of the entry'),
    programmes: z.array(z.string()),
    countries: z.array(z.string()),
    listed_on: z.string().nullable(),
    reference: z.string().nullable().describe("The list's public reference, where it has one"),
    crypto_addresses: z.array(z.string()).describe('Digital currency addresses listed for the entry'),
  })
  .strict()

export const AlertSchema = z
  .object({
    alert_id: z.string(),
    scope: z
      .enum(['list', 'key'])
      .describe(
        'list: a daily list change everyone sees; key: a change touching what this key checked or watches',
      ),
    event_type: AlertEventTypeSchema,
    severity: SeveritySchema,
    jurisdiction: JurisdictionSchema,
    list: z.string().describe('Display name of the list'),
    list_key: ListKeySchema,
    list_date: z.string().nullable().describe('Publication date of the list version with the change'),
    previous_list_date: z.string().nullable().describe('Publication date of the version before it'),
    entry: AlertEntrySchema,
    changed_fields: z
      .array(z.string())
      .describe('For entry_changed: which fields changed (name, aliases, programmes, crypto_addresses, ...)'),
    match: AlertMatchSchema.nullable().describe('What of this key the change touches (scope key), else null'),
    created_at: z.string().describe('When the change was detected (ISO timestamp)'),
  })
  .strict()
export type Alert = z.infer<typeof AlertSchema>
