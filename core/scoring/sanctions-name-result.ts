/** One possible sanctions match, as the sanctions engine reports it (spec: Sanctions match). */
export interface SanctionsNameMatch {
  list: string
  list_key: string
  entry_id: string
  matched_name: string
  match_type: string
  match_score: number
}

/** What screening one name gives: an answer, or `unavailable` (never clean). */
export type SanctionsNameScreenResult =
  | {
      status: 'ok'
      possible_match: boolean
      matches: SanctionsNameMatch[]
      /** List name to the date of the loaded list version. */
      list_dates: Record<string, string>
    }
  | { status: 'unavailable'; reason: string }

/**
 * The port company checks use to screen names against the OFAC SDN, EU and UN lists. The
 * sanctions engine (core/sanctions) implements it; company checks never import that engine, so
 * either side can change without the other. When no implementation is wired, the sanctions
 * finding is `unavailable` with reason `sanctions_lists_not_loaded`, never clean.
 */
export interface SanctionsNameScreen {
  screenName(name: string, country?: string): Promise<SanctionsNameScreenResult>
}
