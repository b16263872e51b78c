export { countryToAlpha2 } from './country-codes.ts'
export { parseEuXml } from './eu-parser.ts'
export { classifyDocumentLabel } from './identifier-types.ts'
export {
  diffEntry,
  diffLists,
  ENTRY_FIELDS,
  type EntryChange,
  type EntryField,
  type ListDiff,
} from './list-diff.ts'
export { type FoundListFile, findListFiles, identifyListFile } from './list-files.ts'
export { type ListHealth, ListHealthSchema, listHealth } from './list-health.ts'
export { ListParseError } from './list-parse-error.ts'
export {
  createListRefresher,
  DEFAULT_REFRESH_INTERVAL_MS,
  type ListRefresher,
  type ListRefresherOptions,
} from './list-refresher.ts'
export {
  bz2Decompress,
  detectListFormat,
  isBz2,
  type ListSource,
  type LoadListSourceOptions,
  loadListSource,
  parseList,
  parseListFile,
  parseListSource,
} from './list-source.ts'
export {
  createSanctionsListStore,
  packEntries,
  type SanctionsListStore,
  type SaveListVersionInput,
  type StoredListDiff,
  type StoredListDiffDetail,
  type StoredListVersion,
  type StoredListVersionWithEntries,
  unpackEntries,
} from './list-store.ts'
export {
  isLatinName,
  type NameKeys,
  nameKeys,
  nameTokens,
  normaliseName,
  tokenSortedKey,
} from './name-normaliser.ts'
export { createSanctionsNameScreen, listDates } from './name-screen-port.ts'
export { parseOfacAdvancedXml } from './ofac-advanced-parser.ts'
export { type OfacCsvFiles, type OfacCsvOptions, parseOfacSdnCsv } from './ofac-csv-parser.ts'
export {
  addressKey,
  buildSanctionsIndex,
  buildSanctionsIndexFromEntries,
  type IndexedList,
  registrationKey,
  type SanctionsIndex,
} from './sanctions-index.ts'
export {
  DEFAULT_MATCH_LIMIT,
  MATCH_SCORES,
  type MatchBasis,
  MatchBasisSchema,
  type MatchType,
  MatchTypeSchema,
  type SanctionsMatch,
  SanctionsMatchSchema,
  type ScreenOptions,
  type ScreenResult,
  screenAddress,
  screenName,
  screenRegistration,
} from './sanctions-screen.ts'
export {
  createSanctionsService,
  type ListProgressEvent,
  type ListRefreshOutcome,
  type ListRefreshStatus,
  type LoadedList,
  type RefreshReport,
  type SanctionsListStatus,
  type SanctionsLog,
  type SanctionsScreening,
  type SanctionsService,
  type SanctionsServiceOptions,
} from './sanctions-service.ts'
export {
  createScreeningIndex,
  type HeldList,
  type RefreshAttempt,
  type ScreeningIndex,
  type ScreeningIndexOptions,
} from './screening-index.ts'
export {
  type AliasKind,
  AliasKindSchema,
  type AliasQuality,
  AliasQualitySchema,
  type EntryType,
  EntryTypeSchema,
  type IdentifierType,
  IdentifierTypeSchema,
  LIST_DISPLAY_NAMES,
  LIST_FORMATS,
  LIST_KEY_OF_FORMAT,
  LIST_KEYS,
  type ListFormat,
  ListFormatSchema,
  type ListKey,
  ListKeySchema,
  type ParsedList,
  type SanctionsAlias,
  SanctionsAliasSchema,
  type SanctionsEntry,
  SanctionsEntrySchema,
  type SanctionsIdentifier,
  SanctionsIdentifierSchema,
} from './types.ts'
export { parseUnXml } from './un-parser.ts'
export type { ListInput } from './xml-stream.ts'
