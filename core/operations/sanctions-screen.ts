import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { PRICES } from '../payments/pricing.ts'
import { type SanctionsCoverage, SanctionsCoverageSchema } from '../sanctions/coverage.ts'
import type { MatchDismissal } from '../sanctions/dismissal-store.ts'
import {
  DEFAULT_FUZZY_THRESHOLD,
  FUZZY_MATCH_TYPES,
  ScoreBreakdownSchema,
} from '../sanctions/fuzzy-screen.ts'
import { EvidenceEntityTypeSchema } from '../sanctions/match-evidence.ts'
import { listDates } from '../sanctions/name-screen-port.ts'
import { SanctionsMatchSchema } from '../sanctions/sanctions-screen.ts'
import type { LoadedList } from '../sanctions/screening-index.ts'
import { countrySchema, entityNameSchema } from '../validate/index.ts'
import { defineOperation } from './define.ts'
import { listsNotReady, SANCTIONS_PART } from './readiness.ts'
import { isOpen, MatchDismissalSchema, withDismissals } from './sanctions-dismissals.ts'

const BIRTH_DATE = /^(\d{4})(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?$/

/** Fields that only the fuzzy mode reads; sent with the exact mode they are refused (422). */
const FUZZY_ONLY_FIELDS = ['threshold', 'entity_type', 'birth_date', 'nationality', 'id_number'] as const

/** spec: POST /v1/sanctions/screen request, plus the fuzzy mode and its evidence. */
export const SanctionsScreenInput = z
  .object({
    name: entityNameSchema.describe('Person or company name to screen, 2-255 characters'),
    country: countrySchema
      .optional()
      .describe(
        'ISO 3166-1 alpha-2 (uppercase): entries linked to it are listed first; it never excludes a match',
      ),
    match: z
      .enum(['exact', 'fuzzy'])
      .optional()
      .describe(
        'exact (default): exact normalised or word-order-insensitive names, as the specification describes. fuzzy: also typos, other transliterations, names the lists publish in another script, joined or split words and given-name variants, each match with a score_breakdown (same price)',
      ),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        `Fuzzy mode only: the lowest match_score returned, 0-1 (default ${DEFAULT_FUZZY_THRESHOLD}); exact and word-order matches are always returned`,
      ),
    entity_type: EvidenceEntityTypeSchema.optional().describe(
      'Fuzzy mode only: person, organization, vessel or any; a listed party of another kind scores 0.2 lower',
    ),
    birth_date: z
      .string()
      .regex(BIRTH_DATE, 'must be YYYY, YYYY-MM or YYYY-MM-DD')
      .optional()
      .describe(
        'Fuzzy mode only: date of birth (YYYY, YYYY-MM or YYYY-MM-DD); a listed date agreeing raises the score, one more than a year away lowers it',
      ),
    nationality: countrySchema
      .optional()
      .describe(
        'Fuzzy mode only: ISO alpha-2 nationality; a listed nationality agreeing raises the score, listed nationalities without it lower it',
      ),
    id_number: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'Fuzzy mode only: passport, national ID or registration number; the same number on the listed entry raises the score by 0.2',
      ),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.match === 'fuzzy') return
    for (const field of FUZZY_ONLY_FIELDS) {
      if (input[field] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'only with "match": "fuzzy"' })
      }
    }
  })

/** spec: Sanctions match (the fields the spec lists; name matches only), plus the fuzzy explanation. */
export const SanctionsScreenMatch = SanctionsMatchSchema.omit({ basis: true }).extend({
  match_type: z
    .enum(FUZZY_MATCH_TYPES)
    .describe(
      'name_exact: same normalised name; name_tokens: same words in another order; fuzzy mode only: name_fuzzy (spelling, typo, joined or split words), name_phonetic (sounds alike or a known variant of a given name), name_transliterated (the name in another script, compared after transliteration)',
    ),
  score_breakdown: ScoreBreakdownSchema.optional().describe(
    'Fuzzy mode only: which listed name matched, part by part, and what the evidence added or took away',
  ),
  dismissal: MatchDismissalSchema.optional(),
})

/** spec: POST /v1/sanctions/screen response 200. */
export const SanctionsScreenResult = z.object({
  possible_match: z
    .boolean()
    .describe(
      'True when at least one list entry matched the name and the calling key has not dismissed that match (a dismissed match stays in matches but does not count; a re-opened one counts)',
    ),
  result: z
    .enum(['clear', 'possible_match', 'incomplete'])
    .describe(
      'clear: no open match (none, or every match dismissed by the calling key with its entry unchanged) and every list (OFAC SDN, EU, UN) was checked against a current version; possible_match: an entry matched and is not dismissed; incomplete: no open match on the lists checked, but not every list was checked, or a list checked is stale (coverage.lists_not_checked; coverage.lists_checked[].stale), so it is not clear',
    ),
  dismissed_matches: z
    .number()
    .int()
    .min(0)
    .describe(
      'How many of the matches the calling key dismissed (dismissal.status dismissed); their match_score is unchanged',
    ),
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
    .describe(
      'The lists in use with their dates and ages, which are stale (older than their threshold or refreshes failing) and which are not loaded',
    ),
  coverage: SanctionsCoverageSchema,
  disclaimer: z.string().describe('A possible match is not a determination'),
  screened_at: z.string().describe('When the screen ran (ISO timestamp)'),
  match: z.literal('fuzzy').optional().describe('Present (fuzzy) when the fuzzy mode ran'),
  threshold: z.number().optional().describe('Fuzzy mode: the threshold applied'),
})

export const FUZZY_SANCTIONS_DISCLAIMER =
  'A possible match is not a determination that the screened party is sanctioned. Fuzzy matches are names spelled like a listed name (typos, transliterations, variants); the score_breakdown shows what agreed. Dates of birth, nationalities and ID numbers are compared only when given. Review each match against the official list entry before acting.'

export const SANCTIONS_DISCLAIMER =
  'A possible match is not a determination that the screened party is sanctioned. Matches are exact normalised or word-order-insensitive name matches only; dates of birth, addresses and identifiers are not compared. Review each match against the official list entry before acting.'

/**
 * Loading and not-configured lists are refused before the charge (essentials); what is left is
 * every list failing to load: the refresher retries hourly.
 */
function listsNotLoaded(): ServiceError {
  return new ServiceError(
    'unavailable',
    'no sanctions list could be loaded (every download failed), so no name can be screened; nothing was charged',
    { retryAfter: 3600, extra: { errorCode: 'sanctions_lists_not_loaded', charged: false } },
  )
}

/** clear only with no match and every promised list checked and current; incomplete otherwise. */
function resultOf(matched: boolean, coverage: SanctionsCoverage): 'possible_match' | 'clear' | 'incomplete' {
  if (matched) return 'possible_match'
  return coverage.status === 'complete' ? 'clear' : 'incomplete'
}

/** What a name screen of either mode read: the lists, their note and coverage, and whether it capped its matches. */
interface NameScreening {
  truncated: boolean
  lists: readonly LoadedList[]
  note: string
  coverage: SanctionsCoverage
}

/**
 * The answer fields both modes share: the matches after dismissals (a dismissed one stays shown
 * and is not counted), the result and what the screen read.
 */
function screenAnswer<Match extends { dismissal?: MatchDismissal }>(
  matches: Match[],
  screened: NameScreening,
  disclaimer: string,
  now: Date,
) {
  const open = matches.filter(isOpen).length
  return {
    possible_match: open > 0,
    result: resultOf(open > 0, screened.coverage),
    dismissed_matches: matches.length - open,
    matches,
    matches_truncated: screened.truncated,
    lists_checked: screened.lists.map((list) => list.list),
    list_dates: listDates(screened.lists),
    list_note: screened.note,
    coverage: screened.coverage,
    disclaimer,
    screened_at: now.toISOString(),
  }
}

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
    'Exact normalised or word-order-insensitive name matches against the lists held locally and refreshed daily (match: exact, the default). match: fuzzy also finds typos, other transliterations, names listed only in another script, joined or split words and given-name variants, scores them 0-1 with a score_breakdown, and weighs optional evidence (entity_type, birth_date, nationality, id_number); same price. country orders matches and never excludes one. A possible match is not a determination. 503 when no list is loaded yet.',
  input: SanctionsScreenInput,
  output: SanctionsScreenResult,
  price: PRICES.sanctions_screen,
  essentials: { parts: [SANCTIONS_PART], check: (_input, deps) => listsNotReady(deps, 'names') },
  ports: ['sanctionsLists', 'dismissals'],
  access: { sandbox: 'refuse' },
  run: async (input, ctx) => {
    const lists = ctx.deps.sanctionsLists
    if (input.match === 'fuzzy') {
      const threshold = input.threshold ?? DEFAULT_FUZZY_THRESHOLD
      const fuzzy = lists?.screenNameFuzzy(input.name, {
        threshold,
        ...(input.country ? { country: input.country } : {}),
        ...(input.entity_type ? { entity_type: input.entity_type } : {}),
        ...(input.birth_date ? { birth_date: input.birth_date } : {}),
        ...(input.nationality ? { nationality: input.nationality } : {}),
        ...(input.id_number ? { id_number: input.id_number } : {}),
      })
      if (!fuzzy || fuzzy.status === 'unavailable') throw listsNotLoaded()
      const matches = await withDismissals(
        ctx,
        'name',
        input.name,
        fuzzy.matches.map(({ basis: _basis, ...match }) => match),
      )
      return {
        ...screenAnswer(matches, fuzzy, FUZZY_SANCTIONS_DISCLAIMER, ctx.clock.now()),
        match: 'fuzzy' as const,
        threshold,
      }
    }
    const result = lists?.screenName(input.name, input.country ? { country: input.country } : {})
    if (!result || result.status === 'unavailable') throw listsNotLoaded()
    const matches = await withDismissals(
      ctx,
      'name',
      input.name,
      // screenName only yields name_exact and name_tokens matches.
      result.matches.map(({ basis: _basis, ...match }) => ({
        ...match,
        match_type: match.match_type as 'name_exact' | 'name_tokens',
      })),
    )
    return screenAnswer(matches, result, SANCTIONS_DISCLAIMER, ctx.clock.now())
  },
})
