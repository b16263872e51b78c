import {
  coverageOf,
  DEFAULT_MAX_LIST_AGE_DAYS,
  daysSince,
  type ListNotCheckedReason,
  type ListState,
  pastMaxAge,
  type SanctionsCoverage,
} from '../../../core/sanctions/coverage.ts'
import { LIST_KEYS, type ListKey } from '../../../core/sanctions/types.ts'

/**
 * The list states of a fake sanctions screen: `loaded` lists published on `date` (default: the
 * day before `now`, so current), the rest `missing`. Staleness follows the service's own rule.
 */
export function fakeListStates(
  loaded: readonly ListKey[] = LIST_KEYS,
  options: { date?: string; missing?: ListNotCheckedReason; now?: Date } = {},
): ListState[] {
  const now = options.now ?? new Date()
  const date = options.date ?? new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10)
  return LIST_KEYS.map((key): ListState => {
    if (!loaded.includes(key))
      return { list_key: key, state: options.missing ?? 'load_failed', detail: 'not loaded in this test' }
    const age = daysSince(date, now)
    const stale = pastMaxAge(age, DEFAULT_MAX_LIST_AGE_DAYS[key])
    return {
      list_key: key,
      state: 'loaded',
      publication_date: date,
      as_of: date,
      age_days: age,
      max_age_days: DEFAULT_MAX_LIST_AGE_DAYS[key],
      stale,
      stale_reason: stale
        ? `published ${age} days ago, more than the ${DEFAULT_MAX_LIST_AGE_DAYS[key]}-day threshold for this list`
        : null,
    }
  })
}

/** The coverage of a fake screen promising `promised`, with `loaded` lists held. */
export function fakeCoverage(
  promised: readonly ListKey[] = LIST_KEYS,
  loaded: readonly ListKey[] = LIST_KEYS,
  options: { missing?: ListNotCheckedReason; date?: string; now?: Date } = {},
): SanctionsCoverage {
  return coverageOf(fakeListStates(loaded, options), promised)
}
