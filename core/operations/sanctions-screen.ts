import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { PRICES } from '../payments/pricing.ts'
import { listDates } from '../sanctions/name-screen-port.ts'
import { SanctionsMatchSchema } from '../sanctions/sanctions-screen.ts'
import { countrySchema, entityNameSchema } from '../validate/index.ts'
import { defineOperation } from './define.ts'

/** spec: POST /v1/sanctions/screen request. */
export const SanctionsScreenInput = z
  .object({
    name: entityNameSchema.describe('Person or company name to screen, 2-255 characters'),
    country: countrySchema
      .optional()
      .describe(
        'ISO 3166-1 alpha-2 (uppercase): entries linked to it are listed first; it never excludes a match',
      ),
  })
  .strict()

/** spec: Sanctions match (the fields the spec lists; name matches only). */
export const SanctionsScreenMatch = SanctionsMatchSchema.omit({ basis: true }).extend({
  match_type: z
    .enum(['name_exact', 'name_tokens'])
    .describe('name_exact: same normalised name; name_tokens: same words in another order'),
})

/** spec: POST /v1/sanctions/screen response 200. */
export const SanctionsScreenResult = z.object({
  possible_match: z.boolean().describe('True when at least one list entry matched the name'),
  matches: z
    .array(SanctionsScreenMatch)
    .describe('Matching list entries, best first (entries linked to country first when given)'),
  matches_truncated: z.boolean().describe('True when more entries matched than are returned (at most 50)'),
  lists_checked: z.array(z.string()).describe('Display names of the lists screened'),
  list_dates: z
    .record(z.string(), z.string())
    .describe('List display name to the date of the version screened (publication date, else fetch date)'),
  list_note: z
    .string()
    .describe('How current the lists are; says how old a list is when refreshes have failed'),
  disclaimer: z.string().describe('A possible match is not a determination'),
  screened_at: z.string().describe('When the screen ran (ISO timestamp)'),
})

export const SANCTIONS_DISCLAIMER =
  'A possible match is not a determination that the screened party is sanctioned. Matches are exact normalised or word-order-insensitive name matches only; dates of birth, addresses and identifiers are not compared. Review each match against the official list entry before acting.'

/**
 * spec: POST /v1/sanctions/screen. "Only exact normalised or word-order-insensitive name
 * matches; a match is not a determination"; country "orders matches, never excludes". With no
 * list loaded at all the call fails with 503 (and is not charged) rather than answering clean.
 */
export const sanctionsScreen = defineOperation({
  id: 'sanctions_screen',
  http: { method: 'POST', path: '/v1/sanctions/screen' },
  summary: 'Screen a person or company name against the OFAC SDN, EU and UN sanctions lists',
  description:
    'Exact normalised or word-order-insensitive name matches against the lists held locally and refreshed daily. country orders matches and never excludes one. A possible match is not a determination. 503 when no list is loaded yet.',
  input: SanctionsScreenInput,
  output: SanctionsScreenResult,
  price: PRICES.sanctions_screen,
  access: { sandbox: 'refuse' },
  run: async (input, ctx) => {
    const lists = ctx.deps.sanctionsLists
    const result = lists?.screenName(input.name, input.country ? { country: input.country } : {})
    if (!result || result.status === 'unavailable') {
      throw new ServiceError(
        'unavailable',
        'sanctions lists are not loaded yet, so no name can be screened; try again later',
        { retryAfter: 60, extra: { errorCode: 'sanctions_lists_not_loaded' } },
      )
    }
    return {
      possible_match: result.matches.length > 0,
      // screenName only yields name_exact and name_tokens matches.
      matches: result.matches.map(({ basis: _basis, ...match }) => ({
        ...match,
        match_type: match.match_type as 'name_exact' | 'name_tokens',
      })),
      matches_truncated: result.truncated,
      lists_checked: result.lists.map((list) => list.list),
      list_dates: listDates(result.lists),
      list_note: result.note,
      disclaimer: SANCTIONS_DISCLAIMER,
      screened_at: ctx.clock.now().toISOString(),
    }
  },
})
