/** One allocated bank code (or a range of consecutive codes of one institution). */
export type BankEntry = {
  /** Bank code as it appears in the IBAN (NL: 4 letters, BE: 3 digits). */
  code: string
  /** Last code of a range, inclusive (BE only; same width as code). */
  to?: string
  /** BIC of the institution; absent where the official list gives none. */
  bic?: string
  /** Institution name as the official list spells it. */
  name: string
}

/** A dated, sourced table of bank codes for one IBAN country. */
export type BankTable = {
  country: 'NL' | 'BE'
  /** Publisher and title of the official list. */
  source: string
  source_url: string
  /** Date of the data: YYYY-MM-DD, or YYYY-MM when only the month is known (see as_of_note). */
  as_of: string
  /** How as_of was established. */
  as_of_note: string
  entries: readonly BankEntry[]
}

/** Finds the entry whose code (or code range) contains the given bank code. */
export function findBankEntry(table: BankTable, bankCode: string): BankEntry | undefined {
  return table.entries.find((entry) =>
    entry.to === undefined ? entry.code === bankCode : entry.code <= bankCode && bankCode <= entry.to,
  )
}
