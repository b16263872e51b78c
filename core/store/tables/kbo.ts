import { bigserial, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'

/*
 * KBO/CBE open data (Belgium's Crossroads Bank for Enterprises), imported from the FOD Economie
 * extracts. Rows carry the import `generation` they belong to: a full extract is written as a
 * new generation and becomes visible in one step when it finishes (readers use the live
 * generation from kbo_import_state), so a lookup never sees half an import.
 */

export const kboEnterprises = pgTable(
  'kbo_enterprises',
  {
    generation: integer('generation').notNull(),
    enterpriseNumber: text('enterprise_number').notNull(),
    status: text('status').notNull(),
    juridicalSituation: text('juridical_situation').notNull(),
    typeOfEnterprise: text('type_of_enterprise').notNull(),
    juridicalForm: text('juridical_form'),
    juridicalFormCac: text('juridical_form_cac'),
    startDate: text('start_date'),
  },
  (table) => [primaryKey({ columns: [table.generation, table.enterpriseNumber] })],
)

export const kboDenominations = pgTable(
  'kbo_denominations',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    generation: integer('generation').notNull(),
    entityNumber: text('entity_number').notNull(),
    language: text('language').notNull(),
    typeOfDenomination: text('type_of_denomination').notNull(),
    denomination: text('denomination').notNull(),
  },
  (table) => [index('kbo_denominations_entity_idx').on(table.generation, table.entityNumber)],
)

export const kboAddresses = pgTable(
  'kbo_addresses',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    generation: integer('generation').notNull(),
    entityNumber: text('entity_number').notNull(),
    typeOfAddress: text('type_of_address').notNull(),
    countryNl: text('country_nl'),
    countryFr: text('country_fr'),
    zipcode: text('zipcode'),
    municipalityNl: text('municipality_nl'),
    municipalityFr: text('municipality_fr'),
    streetNl: text('street_nl'),
    streetFr: text('street_fr'),
    houseNumber: text('house_number'),
    box: text('box'),
    extraAddressInfo: text('extra_address_info'),
    dateStrikingOff: text('date_striking_off'),
  },
  (table) => [index('kbo_addresses_entity_idx').on(table.generation, table.entityNumber)],
)

export const kboActivities = pgTable(
  'kbo_activities',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    generation: integer('generation').notNull(),
    entityNumber: text('entity_number').notNull(),
    activityGroup: text('activity_group').notNull(),
    naceVersion: text('nace_version').notNull(),
    naceCode: text('nace_code').notNull(),
    classification: text('classification').notNull(),
  },
  (table) => [index('kbo_activities_entity_idx').on(table.generation, table.entityNumber)],
)

/** code.csv descriptions, shared by every generation (a full extract without code.csv keeps them). */
export const kboCodes = pgTable(
  'kbo_codes',
  {
    category: text('category').notNull(),
    code: text('code').notNull(),
    language: text('language').notNull(),
    description: text('description').notNull(),
  },
  (table) => [primaryKey({ columns: [table.category, table.code, table.language] })],
)

/** Enterprises that left the open data (which holds active entities only), with their last names. */
export const kboStopped = pgTable('kbo_stopped', {
  enterpriseNumber: text('enterprise_number').primaryKey(),
  enterprise: jsonb('enterprise').notNull(),
  names: jsonb('names').notNull(),
  extract: text('extract').notNull(),
})

/** Enterprises an update extract deleted; they become stopped unless re-inserted before it ends. */
export const kboPendingStops = pgTable('kbo_pending_stops', {
  enterpriseNumber: text('enterprise_number').primaryKey(),
  enterprise: jsonb('enterprise').notNull(),
  names: jsonb('names').notNull(),
})

/** One row (id 1): the live generation, the one being built, and the last extract imported. */
export const kboImportState = pgTable('kbo_import_state', {
  id: integer('id').primaryKey(),
  liveGeneration: integer('live_generation'),
  buildingGeneration: integer('building_generation'),
  extractType: text('extract_type'),
  extractNumber: text('extract_number'),
  snapshotDate: text('snapshot_date'),
  importedAt: text('imported_at'),
})
