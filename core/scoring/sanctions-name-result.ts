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
