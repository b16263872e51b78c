import { z } from 'zod'
import { LIST_DISPLAY_NAMES, LIST_KEYS, type ListKey, ListKeySchema } from './types.ts'

/**
 * Which lists a sanctions result rests on (DESIGN "Honest answers": coverage is explicit). A
 * result is clear only when every list the operation promises was checked against a current
 * version: a name screen promises the OFAC SDN, EU and UN lists (the spec: "held locally,
 * refreshed daily"); a wallet screen promises the OFAC SDN list, the only one that publishes
 * digital currency addresses. Each list checked carries its publication date and age (flagged
 * stale past its threshold or while its refreshes fail); each list not checked says why. A stale
 * list makes the coverage `partial` like a missing one: what it would have said today was not
 * checked, so no result resting on it is clear.
 */

/** Lists a name screen promises (spec: "OFAC SDN, EU and UN lists"). */
export const NAME_SCREEN_LISTS: readonly ListKey[] = LIST_KEYS
/** Lists a wallet-address screen promises: only OFAC SDN lists digital currency addresses. */
export const ADDRESS_SCREEN_LISTS: readonly ListKey[] = ['ofac_sdn']

/**
 * How old a list version may be, in days since its publication, before it is reported stale
 * (docs/sanctions.md "Freshness"). OFAC changes the SDN list several times a week; the EU and UN
 * consolidated lists change less often. SANCTIONS_MAX_AGE_DAYS_* override them.
 */
export const DEFAULT_MAX_LIST_AGE_DAYS: Readonly<Record<ListKey, number>> = {
  ofac_sdn: 7,
  eu: 30,
  un: 30,
}

/**
 * The one freshness rule for a list's age (docs/sanctions.md "Freshness"): stale when more whole
 * days than its threshold have passed since its publication (else fetch) date, so a list exactly
 * `maxAgeDays` old is still current. Every place that decides staleness by age calls this.
 */
export function pastMaxAge(ageDays: number, maxAgeDays: number): boolean {
  return ageDays > maxAgeDays
}

/** Why a list could not be checked. */
export const ListNotCheckedReasonSchema = z
  .enum(['loading', 'not_configured', 'load_failed'])
  .describe(
    'loading: its first version is still being read (retry shortly); not_configured: the operator set no source and no copy is stored; load_failed: reading its source failed and no copy is stored (retried hourly)',
  )
export type ListNotCheckedReason = z.infer<typeof ListNotCheckedReasonSchema>

/** The state of one list in this process, as coverage and readiness read it. */
export type ListState =
  | {
      list_key: ListKey
      state: 'loaded'
      publication_date: string | null
      /** Publication date, else the day the version was fetched. */
      as_of: string
      age_days: number
      max_age_days: number
      stale: boolean
      stale_reason: string | null
    }
  | { list_key: ListKey; state: ListNotCheckedReason; detail: string }

export const ListCheckedSchema = z
  .object({
    list_key: ListKeySchema,
    list: z.string().describe('Display name of the list'),
    publication_date: z
      .string()
      .nullable()
      .describe('Publication date of the version screened (YYYY-MM-DD); null when the file gives none'),
    as_of: z.string().describe('Publication date, else the day the version was fetched'),
    age_days: z.number().int().min(0).describe('Whole days since as_of'),
    max_age_days: z
      .number()
      .int()
      .min(1)
      .describe('Age past which this list is reported stale (docs/sanctions.md "Freshness")'),
    stale: z.boolean().describe('True when the version is older than max_age_days or refreshes are failing'),
    stale_reason: z.string().nullable().describe('Why it is stale (null when it is not)'),
  })
  .strict()
export type ListChecked = z.infer<typeof ListCheckedSchema>

export const ListNotCheckedSchema = z
  .object({
    list_key: ListKeySchema,
    list: z.string().describe('Display name of the list'),
    reason: ListNotCheckedReasonSchema,
    detail: z.string().describe('What happened, and what the operator can do'),
  })
  .strict()
export type ListNotChecked = z.infer<typeof ListNotCheckedSchema>

export const SanctionsCoverageSchema = z
  .object({
    status: z
      .enum(['complete', 'partial', 'none'])
      .describe(
        'complete: every list this result promises was checked, each within its freshness threshold; partial: some were not (see lists_not_checked) or a list checked is stale (lists_checked[].stale, with stale_reason), so the result is never clear; none: no list could be checked',
      ),
    lists_promised: z.array(ListKeySchema).describe('The lists this result promises to check'),
    lists_checked: z.array(ListCheckedSchema).describe('Lists screened, with publication date and age'),
    lists_not_checked: z.array(ListNotCheckedSchema).describe('Promised lists not screened, and why'),
    stale: z
      .boolean()
      .describe(
        'True when a list screened is stale (see its stale and stale_reason); the status is then partial',
      ),
  })
  .strict()
  .describe('Which sanctions lists this result rests on')
export type SanctionsCoverage = z.infer<typeof SanctionsCoverageSchema>

const DAY_MS = 86_400_000

/** Whole days from a YYYY-MM-DD date (UTC midnight) to `now`, never negative. */
export function daysSince(date: string, now: Date): number {
  const start = Date.parse(`${date.slice(0, 10)}T00:00:00Z`)
  if (Number.isNaN(start)) return 0
  return Math.max(0, Math.floor((now.getTime() - start) / DAY_MS))
}

/** The coverage of a result that promises `promised`, from the state of every list now. */
export function coverageOf(states: readonly ListState[], promised: readonly ListKey[]): SanctionsCoverage {
  const checked: ListChecked[] = []
  const notChecked: ListNotChecked[] = []
  for (const key of promised) {
    const state = states.find((candidate) => candidate.list_key === key)
    const list = LIST_DISPLAY_NAMES[key]
    if (state?.state === 'loaded') {
      const { state: _state, ...loaded } = state
      checked.push({ ...loaded, list })
    } else {
      notChecked.push({
        list_key: key,
        list,
        reason: state?.state ?? 'not_configured',
        detail: state?.detail ?? 'no list source configured and no stored copy',
      })
    }
  }
  const stale = checked.filter((list) => list.stale).map((list) => list.list_key)
  return {
    status:
      checked.length === 0 ? 'none' : notChecked.length === 0 && stale.length === 0 ? 'complete' : 'partial',
    lists_promised: [...promised],
    lists_checked: checked,
    lists_not_checked: notChecked,
    stale: stale.length > 0,
  }
}

/**
 * Why a coverage is not complete, for findings and reasons: "not checked: EU (load_failed: …);
 * stale: UN (published 40 days ago, …)" (`detail: false`: the reasons without their details).
 * Empty when it is complete.
 */
export function coverageGaps(coverage: SanctionsCoverage, options: { detail?: boolean } = {}): string {
  const parts: string[] = []
  if (coverage.lists_not_checked.length > 0) {
    parts.push(
      options.detail === false
        ? `not checked: ${coverage.lists_not_checked.map((list) => `${list.list} (${list.reason})`).join(', ')}`
        : `not checked: ${coverage.lists_not_checked.map((list) => `${list.list} (${list.reason}: ${list.detail})`).join('; ')}`,
    )
  }
  const stale = coverage.lists_checked.filter((list) => list.stale)
  if (stale.length > 0) {
    parts.push(`stale: ${stale.map((list) => `${list.list} (${list.stale_reason ?? 'too old'})`).join('; ')}`)
  }
  return parts.join('; ')
}

/** Coverage when nothing could be asked at all (no sanctions port wired). */
export function noCoverage(promised: readonly ListKey[], detail: string): SanctionsCoverage {
  return coverageOf(
    promised.map((list_key) => ({ list_key, state: 'not_configured' as const, detail })),
    promised,
  )
}

/** One sentence a person reads: what was checked (with dates and ages) and what was not. */
export function describeCoverage(coverage: SanctionsCoverage): string {
  const parts: string[] = []
  if (coverage.lists_checked.length > 0) {
    parts.push(
      `Checked: ${coverage.lists_checked
        .map(
          (list) =>
            `${list.list} ${list.publication_date ? `published ${list.publication_date}` : `fetched ${list.as_of}`} (${list.age_days} day${list.age_days === 1 ? '' : 's'} old${list.stale ? `; STALE: ${list.stale_reason}` : ''})`,
        )
        .join(', ')}.`,
    )
  }
  if (coverage.lists_not_checked.length > 0) {
    parts.push(
      `Not checked: ${coverage.lists_not_checked.map((list) => `${list.list} (${list.reason}: ${list.detail})`).join('; ')}.`,
    )
  }
  if (coverage.status !== 'complete') parts.push('The result is not a clear screen.')
  return parts.join(' ')
}

/** The short form for findings: "OFAC SDN 2025-11-19, UN ... 2026-02-27" plus what is missing. */
export function coverageSummary(coverage: SanctionsCoverage): string {
  const checked = coverage.lists_checked
    .map((list) => `${list.list} ${list.as_of}${list.stale ? ' (stale)' : ''}`)
    .join(', ')
  const missing = coverage.lists_not_checked.map((list) => `${list.list} (${list.reason})`).join(', ')
  return `${checked || 'no list'}${missing ? `; not checked: ${missing}` : ''}`
}
