/** The whole database schema: one file per area under tables/, listed here for drizzle and the store. */

export { entityChecks } from './tables/checks.ts'
export { apiKeys, usageEvents } from './tables/keys.ts'
export { paymentNonces, serviceInstances, settlements } from './tables/payments.ts'
