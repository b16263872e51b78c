import { validateIban } from '../validate/index.ts'
import { BE_BANK_TABLE } from './bank-codes-be.ts'
import { NL_BANK_TABLE } from './bank-codes-nl.ts'
import { type BankTable, findBankEntry } from './bank-table.ts'

export type BankIdentification = {
  country: 'NL' | 'BE'
  /** Bank code taken from the IBAN (NL positions 5-8, BE positions 5-7). */
  bank_code: string
  bank_name: string
  bic?: string
  /** Date of the reference list used (see BankTable.as_of). */
  as_of: string
  /** Name of the official list. */
  source: string
}

const TABLES: Record<'NL' | 'BE', { table: BankTable; codeLength: number }> = {
  NL: { table: NL_BANK_TABLE, codeLength: 4 },
  BE: { table: BE_BANK_TABLE, codeLength: 3 },
}

/**
 * Identifies the bank behind a Dutch or Belgian IBAN from the dated official code lists (spec:
 * lead verify "IBAN country and bank (not holder)"). Returns null when the IBAN is invalid, from
 * another country, or carries a code that is unallocated in the list (e.g. the fictitious BE
 * example BE68539007547034). It says which bank issued the number, never who holds the account.
 */
export function lookupBank(iban: string): BankIdentification | null {
  const parsed = validateIban(iban)
  if (!parsed.ok) return null
  const { country, bban } = parsed.value
  if (country !== 'NL' && country !== 'BE') return null
  const { table, codeLength } = TABLES[country]
  const bankCode = bban.slice(0, codeLength)
  const entry = findBankEntry(table, bankCode)
  if (entry === undefined) return null
  return {
    country,
    bank_code: bankCode,
    bank_name: entry.name,
    ...(entry.bic === undefined ? {} : { bic: entry.bic }),
    as_of: table.as_of,
    source: table.source,
  }
}

/** The bank tables with their source and date, e.g. for a /v1 "sources" listing. */
export function bankTables(): readonly BankTable[] {
  return [NL_BANK_TABLE, BE_BANK_TABLE]
}
