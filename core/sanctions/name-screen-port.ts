import type { SanctionsNameScreen } from '../checks/sanctions-name-screen.ts'
import type { SanctionsNameScreenResult } from '../scoring/sanctions-name-result.ts'
import { ADDRESS_SCREEN_LISTS, NAME_SCREEN_LISTS } from './coverage.ts'
import type { FuzzyScreening, LoadedList, SanctionsScreening, SanctionsService } from './sanctions-service.ts'

/** `list_dates` of a screen result: list display name to the date of the version in use. */
export function listDates(lists: readonly LoadedList[]): Record<string, string> {
  return Object.fromEntries(lists.map((list) => [list.list, list.as_of]))
}

/**
 * The company checks' sanctions port (core/checks/sanctions-name-screen.ts) over the sanctions service, so
 * entity, risk, reputation and KYB checks screen names against the real lists. With no list
 * loaded the answer is `unavailable` / `sanctions_lists_not_loaded`, never clean.
 */
export function createSanctionsNameScreen(
  service: Pick<SanctionsService, 'screenName' | 'coverage'> &
    Partial<Pick<SanctionsService, 'screenAddress' | 'screenNameFuzzy'>>,
): SanctionsNameScreen {
  return {
    coverage: (target) => service.coverage(target === 'names' ? NAME_SCREEN_LISTS : ADDRESS_SCREEN_LISTS),
    ...(service.screenAddress
      ? { screenAddress: async (address: string) => portResult(service.screenAddress!(address)) }
      : {}),
    screenName: async (name, country, options) =>
      options?.match === 'fuzzy' && service.screenNameFuzzy
        ? portResult(service.screenNameFuzzy(name, country ? { country } : {}))
        : portResult(service.screenName(name, country ? { country } : {})),
  }
}

/** A screening of the sanctions service as the checks' port answers it (names and addresses alike). */
function portResult(result: SanctionsScreening | FuzzyScreening): SanctionsNameScreenResult {
  if (result.status === 'unavailable')
    return { status: 'unavailable', reason: result.reason, coverage: result.coverage }
  return {
    status: 'ok',
    possible_match: result.matches.length > 0,
    matches: result.matches.map((match) => ({
      list: match.list,
      list_key: match.list_key,
      entry_id: match.entry_id,
      matched_name: match.matched_name,
      match_type: match.match_type,
      match_score: match.match_score,
      programmes: match.programmes,
      listed_on: match.listed_on,
    })),
    list_dates: listDates(result.lists),
    coverage: result.coverage,
  }
}
