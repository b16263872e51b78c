export { BE_BANK_TABLE } from './bank-codes-be.ts'
export { NL_BANK_TABLE } from './bank-codes-nl.ts'
export { type BankIdentification, bankTables, lookupBank } from './bank-lookup.ts'
export { type BankEntry, type BankTable, findBankEntry } from './bank-table.ts'
export {
  COUNTRY_RISK_AS_OF,
  COUNTRY_RISK_LISTS,
  type CountryRisk,
  type CountryRiskFactor,
  countryRisk,
  type RiskLevel,
  riskLevelForScore,
} from './country-risk.ts'
export {
  COMPREHENSIVE_SANCTIONS,
  type CountryList,
  type CountryListId,
  EU_EEA_MEMBERS,
  EU_HIGH_RISK_THIRD_COUNTRIES,
  FATF_CALL_FOR_ACTION,
  FATF_INCREASED_MONITORING,
  FATF_MEMBERS,
  SECTORAL_SANCTIONS,
} from './country-risk-lists.ts'
