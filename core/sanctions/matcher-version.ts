/**
 * The version of the screening matcher (name normalisation, exact and word-order matching, the
 * fuzzy scorer, its given-name variants and thresholds, the wallet-address match). Receipts of
 * screening answers carry it with the list versions, so an examiner can tell which matching rules
 * produced an answer. Raise it with every change that can change a screen's matches or scores.
 */
export const MATCHER_VERSION = 'screen-2026.11.3'
