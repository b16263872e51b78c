/** The whole database schema: one file per area under tables/, listed here for drizzle and the store. */
export { apiKeys, usageEvents } from './tables/keys.ts'
export { paymentNonces, serviceInstances, settlements } from './tables/payments.ts'
