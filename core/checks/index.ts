export { type CheckStore, createCheckStore, ownerOf, type StoredCheck } from './check-store.ts'
export {
  type CompanyCheckDeps,
  type CompanyCheckOutcome,
  type CompanyCheckRequest,
  type RegisterProfile,
  runCompanyCheck,
  sanctionsCoverageOf,
} from './company-check.ts'
export type { CompanySources } from './company-sources.ts'
export {
  type AdverseMedia,
  DEEP_SOURCE_NAMES,
  type DeepCheckOutcome,
  type DeepCheckRequest,
  type DeepCheckSources,
  type InsolvencyRecords,
  type PepExtended,
  pepExtendedOf,
  runDeepCheck,
} from './deep-check.ts'
export {
  cbeOf,
  type EntityIdentity,
  entityCheckIdentity,
  entityHash,
  inputHash,
  nameIdentity,
  registrationIdentity,
} from './entity-hash.ts'
export { CACHED_MAX_AGE_MS, type CheckEnvelope, runTiered, type TieredCheck } from './quality-tier.ts'
export { getReputationHistory, type HistoryEntry, type ReputationHistory } from './reputation-history.ts'
