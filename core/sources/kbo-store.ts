/**
 * Normalised rows of the KBO Open Data files (FOD Economie "Cookbook KBO Open data"): numbers
 * keep the dotted form of the files (`0200.065.765`), dates become ISO (`1960-08-09`), empty
 * fields become null. Column names follow the CSV headers in snake_case.
 */
export interface KboEnterpriseRecord {
  enterprise_number: string
  /** `AC` in the open data (it holds active entities only). */
  status: string
  juridical_situation: string
  /** `1` natural person, `2` legal person. */
  type_of_enterprise: string
  juridical_form: string | null
  juridical_form_cac: string | null
  start_date: string | null
}

export interface KboDenominationRecord {
  entity_number: string
  /** `0` unknown, `1` FR, `2` NL, `3` DE, `4` EN. */
  language: string
  /** `001` name, `002` abbreviation, `003` commercial name, `004` branch name. */
  type_of_denomination: string
  denomination: string
}

export interface KboAddressRecord {
  entity_number: string
  /** `REGO` seat, `BAET` establishment, `ABBR` branch, `OBAD` oldest active establishment. */
  type_of_address: string
  country_nl: string | null
  country_fr: string | null
  zipcode: string | null
  municipality_nl: string | null
  municipality_fr: string | null
  street_nl: string | null
  street_fr: string | null
  house_number: string | null
  box: string | null
  extra_address_info: string | null
  date_striking_off: string | null
}

export interface KboActivityRecord {
  entity_number: string
  activity_group: string
  /** `2003`, `2008` or `2025`. */
  nace_version: string
  nace_code: string
  /** `MAIN`, `SECO` or `ANCI`. */
  classification: string
}

export interface KboCodeRecord {
  category: string
  code: string
  language: string
  description: string
}

/** meta.csv of one extract. */
export interface KboImportMeta {
  extract_type: 'full' | 'update'
  extract_number: string | null
  snapshot_date: string | null
  extract_timestamp: string | null
  version: string | null
}

export type KboTable = 'enterprise' | 'denomination' | 'address' | 'activity'

/** What a lookup needs about one enterprise. */
export interface KboEnterpriseBundle {
  enterprise: KboEnterpriseRecord
  /**
   * Set when the enterprise left the open data (absent from a later full extract, or deleted by
   * an update and not re-inserted): the open data holds active entities only, so leaving it
   * means the entity stopped. Names are kept from the last extract that had it.
   */
  stopped_in_extract: string | null
  denominations: KboDenominationRecord[]
  addresses: KboAddressRecord[]
  activities: KboActivityRecord[]
}

export interface KboImportState {
  extract_type: 'full' | 'update'
  extract_number: string | null
  snapshot_date: string | null
  imported_at: string
}

/**
 * Where the KBO open data lives. The importer writes through it in batches; the lookup reads
 * one enterprise at a time. The database implementation (core/store) must keep the contract
 * the in-memory one shows:
 * - `beginImport` / `finishImport` bracket one extract. A full extract replaces everything
 *   atomically at `finishImport` (readers see the old data until then); enterprises of the
 *   old data absent from the new extract are kept as stopped (with their names).
 * - An update extract first calls `deleteRows` (the `*_delete.csv` files), then inserts the
 *   `*_insert.csv` rows; enterprises deleted and not re-inserted become stopped at `finishImport`.
 * - Denomination, address and activity rows are plain inserts (several per entity).
 */
export interface KboStore {
  beginImport(meta: KboImportMeta): Promise<void>
  upsertEnterprises(batch: KboEnterpriseRecord[]): Promise<void>
  insertDenominations(batch: KboDenominationRecord[]): Promise<void>
  insertAddresses(batch: KboAddressRecord[]): Promise<void>
  insertActivities(batch: KboActivityRecord[]): Promise<void>
  upsertCodes(batch: KboCodeRecord[]): Promise<void>
  deleteRows(table: KboTable, entityNumbers: string[]): Promise<void>
  finishImport(meta: KboImportMeta, importedAt: Date): Promise<void>
  /** By dotted enterprise number. */
  getEnterprise(enterpriseNumber: string): Promise<KboEnterpriseBundle | null>
  /** Description of one code (code.csv) in the first of `languages` that has one. */
  describeCode(category: string, code: string, languages: string[]): Promise<string | null>
  /** null until a first extract has been imported. */
  getImportState(): Promise<KboImportState | null>
}

interface Tables {
  enterprises: Map<string, KboEnterpriseRecord>
  denominations: Map<string, KboDenominationRecord[]>
  addresses: Map<string, KboAddressRecord[]>
  activities: Map<string, KboActivityRecord[]>
  stopped: Map<string, { enterprise: KboEnterpriseRecord; names: KboDenominationRecord[]; extract: string }>
  codes: Map<string, string>
}

const emptyTables = (): Tables => ({
  enterprises: new Map(),
  denominations: new Map(),
  addresses: new Map(),
  activities: new Map(),
  stopped: new Map(),
  codes: new Map(),
})

const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

/**
 * In-memory {@link KboStore} for tests, examples and small deployments; the reference for the
 * database implementation's behaviour.
 */
export function createInMemoryKboStore(): KboStore {
  let live = emptyTables()
  let target = live
  let pendingStop = new Map<string, { enterprise: KboEnterpriseRecord; names: KboDenominationRecord[] }>()
  let state: KboImportState | null = null

  return {
    async beginImport(meta) {
      pendingStop = new Map()
      target = meta.extract_type === 'full' ? { ...emptyTables(), codes: new Map(live.codes) } : live
    },
    async upsertEnterprises(batch) {
      for (const row of batch) {
        target.enterprises.set(row.enterprise_number, row)
        pendingStop.delete(row.enterprise_number)
        target.stopped.delete(row.enterprise_number)
      }
    },
    async insertDenominations(batch) {
      for (const row of batch) push(target.denominations, row.entity_number, row)
    },
    async insertAddresses(batch) {
      for (const row of batch) push(target.addresses, row.entity_number, row)
    },
    async insertActivities(batch) {
      for (const row of batch) push(target.activities, row.entity_number, row)
    },
    async upsertCodes(batch) {
      for (const row of batch)
        target.codes.set(`${row.category}|${row.code}|${row.language}`, row.description)
    },
    async deleteRows(table, numbers) {
      for (const number of numbers) {
        if (table === 'enterprise') {
          const enterprise = target.enterprises.get(number)
          if (enterprise) {
            pendingStop.set(number, { enterprise, names: target.denominations.get(number) ?? [] })
            target.enterprises.delete(number)
          }
        } else if (table === 'denomination') target.denominations.delete(number)
        else if (table === 'address') target.addresses.delete(number)
        else target.activities.delete(number)
      }
    },
    async finishImport(meta, importedAt) {
      const extract = meta.extract_number ?? meta.snapshot_date ?? importedAt.toISOString()
      if (meta.extract_type === 'full') {
        for (const [number, enterprise] of live.enterprises) {
          if (!target.enterprises.has(number)) {
            target.stopped.set(number, { enterprise, names: live.denominations.get(number) ?? [], extract })
          }
        }
        for (const [number, tombstone] of live.stopped) {
          if (!target.enterprises.has(number) && !target.stopped.has(number))
            target.stopped.set(number, tombstone)
        }
        live = target
      } else {
        for (const [number, gone] of pendingStop) {
          if (!live.enterprises.has(number)) live.stopped.set(number, { ...gone, extract })
        }
      }
      target = live
      pendingStop = new Map()
      state = {
        extract_type: meta.extract_type,
        extract_number: meta.extract_number,
        snapshot_date: meta.snapshot_date,
        imported_at: importedAt.toISOString(),
      }
    },
    async getEnterprise(number) {
      const enterprise = live.enterprises.get(number)
      if (enterprise) {
        return {
          enterprise,
          stopped_in_extract: null,
          denominations: live.denominations.get(number) ?? [],
          addresses: live.addresses.get(number) ?? [],
          activities: live.activities.get(number) ?? [],
        }
      }
      const stopped = live.stopped.get(number)
      if (!stopped) return null
      return {
        enterprise: stopped.enterprise,
        stopped_in_extract: stopped.extract,
        denominations: stopped.names,
        addresses: [],
        activities: [],
      }
    },
    async describeCode(category, code, languages) {
      for (const language of languages) {
        const found = live.codes.get(`${category}|${code}|${language}`)
        if (found) return found
      }
      return null
    },
    async getImportState() {
      return state
    },
  }
}
