import type { SanctionsCoverage } from '../sanctions/coverage.ts'

/** One possible sanctions match, as the sanctions engine reports it (spec: Sanctions match). */
export interface SanctionsNameMatch {
  list: string
  list_key: string
  entry_id: string
  matched_name: string
  match_type: string
  match_score: number
  /** Sanctions programmes of the listed entry (what a reviewer weighs first). */
  programmes?: string[]
  /** Listing date YYYY-MM-DD; null when the list gives none. */
  listed_on?: string | null
}

/** A match the calling key dismissed as a false positive. */
export interface SanctionsDismissedMatch extends SanctionsNameMatch {
  dismissal: { dismissal_id: string; dismissed_by: string; dismissed_at: string; reason: string }
}

/**
 * What screening one name (or address) gives: an answer with the coverage of the lists it
 * promises, or `unavailable` (never clean). An answer whose coverage is not complete is never
 * a clear screen (DESIGN "Honest answers").
 */
export type SanctionsNameScreenResult =
  | {
      status: 'ok'
      possible_match: boolean
      matches: SanctionsNameMatch[]
      /**
       * Matches the calling key dismissed (entry unchanged since): not in `matches` and not a
       * possible match, but named in the evidence with who dismissed them, when and why.
       */
      dismissed?: SanctionsDismissedMatch[]
      /** List name to the date of the loaded list version. */
      list_dates: Record<string, string>
      /** Lists checked (with dates and ages) and lists not checked, with why. */
      coverage: SanctionsCoverage
    }
  | { status: 'unavailable'; reason: string; coverage?: SanctionsCoverage }
