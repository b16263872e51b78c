/** The whole database schema: one file per area under tables/, listed here for drizzle and the store. */

export { entityChecks } from './tables/checks.ts'
export { sanctionsDismissals } from './tables/dismissals.ts'
export { auditEvents } from './tables/evidence.ts'
export { idempotencyRecords } from './tables/idempotency.ts'
export {
  kboActivities,
  kboAddresses,
  kboCodes,
  kboDenominations,
  kboEnterprises,
  kboImportState,
  kboPendingStops,
  kboStopped,
} from './tables/kbo.ts'
export { apiKeys, keyReservations, usageEvents } from './tables/keys.ts'
export { rateLimitCounters } from './tables/limits.ts'
export {
  alertDiffRuns,
  complianceAlerts,
  watchlistEntries,
  webhookAttempts,
  webhookDeliveries,
  webhooks,
} from './tables/monitoring.ts'
export { maintenanceState, providerRegistrations } from './tables/operations.ts'
export { paymentNonces, serviceInstances, settlements } from './tables/payments.ts'
export { entityReports, reportIdentifiers, reportShares } from './tables/reports.ts'
export { sanctionsListDiffs, sanctionsListVersions, sanctionsRefreshLeases } from './tables/sanctions.ts'
export { usageRollups } from './tables/usage.ts'
