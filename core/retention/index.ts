export {
  RETENTION_CATEGORIES,
  type RetentionCategory,
  resolveRetentionDays,
  SEVEN_YEARS_DAYS,
} from './categories.ts'
export { type DataInventoryDeps, type DataInventoryItem, readDataInventory } from './data-inventory.ts'
export {
  createRetentionJob,
  type RetentionJob,
  type RetentionJobOptions,
  type RetentionPassReport,
} from './retention-job.ts'
