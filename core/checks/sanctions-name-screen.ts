import type { SanctionsCoverage } from '../sanctions/coverage.ts'
import type { SanctionsNameScreenResult } from '../scoring/sanctions-name-result.ts'

/**
 * The port company checks use to screen names against the OFAC SDN, EU and UN lists. The
 * sanctions engine (core/sanctions) implements it; company checks never import that engine, so
 * either side can change without the other. When no implementation is wired, the sanctions
 * finding is `unavailable` with reason `sanctions_lists_not_loaded`, never clean.
 */
export interface SanctionsNameScreenOptions {
  /**
   * exact (default): exact normalised or word-order names. fuzzy: also spelling variants,
   * typos and transliterations at the default threshold (NAME_MATCHING.md, "Fuzzy mode").
   */
  match?: 'exact' | 'fuzzy'
}

export interface SanctionsNameScreen {
  screenName(
    name: string,
    country?: string,
    options?: SanctionsNameScreenOptions,
  ): Promise<SanctionsNameScreenResult>
  /**
   * Screens a crypto address against the listed digital currency addresses (EVM in any letter
   * case, base58 exactly); absent: wallet addresses are reported not screened.
   */
  screenAddress?(address: string): Promise<SanctionsNameScreenResult>
  /**
   * The coverage a screen would have now: `names` promises the OFAC SDN, EU and UN lists,
   * `addresses` the OFAC SDN list (the only one with digital currency addresses). Read before a
   * call is charged (core/operations/readiness.ts).
   */
  coverage(target: 'names' | 'addresses'): SanctionsCoverage
}
