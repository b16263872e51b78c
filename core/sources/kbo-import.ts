import { createReadStream } from 'node:fs'
import { access } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { parse } from 'csv-parse'
import { type Clock, systemClock } from '../context.ts'
import type {
  KboActivityRecord,
  KboAddressRecord,
  KboCodeRecord,
  KboDenominationRecord,
  KboEnterpriseRecord,
  KboImportMeta,
  KboStore,
  KboTable,
} from './kbo-store.ts'

/** Opens one file of an extract by its name (`enterprise.csv`); null when the extract lacks it. */
export interface KboFileSource {
  open(name: string): Promise<Readable | null>
}

/** An extract unpacked into a folder (the files of `KboOpenData_<n>_<yyyy>_<mm>_Full.zip`). */
export function kboDirectorySource(directory: string): KboFileSource {
  return {
    async open(name) {
      const path = join(directory, name)
      try {
        await access(path)
      } catch {
        return null
      }
      return createReadStream(path)
    },
  }
}

export interface KboImporterOptions {
  store: KboStore
  clock?: Clock
  /** Rows per store call. Default 1000. */
  batchSize?: number
  /**
   * Also keep rows of establishments (numbers `9.999.999.999`). Default false: lookups are by
   * enterprise, and establishments are most of activity.csv's 1.6 GB.
   */
  includeEstablishments?: boolean
}

export interface KboImportStats {
  meta: KboImportMeta
  rows: Record<'enterprise' | 'denomination' | 'address' | 'activity' | 'code' | 'deleted', number>
  /** Rows that could not be read (wrong column count, bad number) and were skipped. */
  skipped: number
}

export interface KboImporter {
  /** Streams one extract (full or update, told by meta.csv) into the store. */
  importExtract(source: KboFileSource): Promise<KboImportStats>
}

const ENTERPRISE_NUMBER = /^[01]\d{3}\.\d{3}\.\d{3}$/
const ESTABLISHMENT_NUMBER = /^[2-8]\.\d{3}\.\d{3}\.\d{3}$/

type Row = Record<string, string | undefined>

/**
 * Streaming importer for KBO Open Data (the monthly full zip or the update zip of CSV files,
 * FOD Economie "Cookbook KBO Open data"): reads each CSV with csv-parse as a stream, normalises
 * rows (dotted numbers, ISO dates, nulls) and writes them in batches through the
 * {@link KboStore} port, so memory stays flat whatever the file size. An update extract applies
 * its `*_delete.csv` files before its `*_insert.csv` files, as the cookbook prescribes.
 */
export function createKboImporter(options: KboImporterOptions): KboImporter {
  const { store } = options
  const clock = options.clock ?? systemClock
  const batchSize = options.batchSize ?? 1000
  const keep = (entityNumber: string) =>
    ENTERPRISE_NUMBER.test(entityNumber) ||
    (options.includeEstablishments === true && ESTABLISHMENT_NUMBER.test(entityNumber))

  return {
    async importExtract(source) {
      const meta = await readMeta(source)
      const stats: KboImportStats = {
        meta,
        rows: { enterprise: 0, denomination: 0, address: 0, activity: 0, code: 0, deleted: 0 },
        skipped: 0,
      }
      const update = meta.extract_type === 'update'
      const fileName = (base: string) => (update ? `${base}_insert.csv` : `${base}.csv`)

      async function load<T>(
        name: string,
        toRecord: (row: Row) => T | null | undefined,
        write: (batch: T[]) => Promise<void>,
      ): Promise<number> {
        const stream = await source.open(name)
        if (!stream) return 0
        let count = 0
        let batch: T[] = []
        for await (const row of parseCsv(stream)) {
          const record = toRecord(row)
          if (record === null) {
            stats.skipped++
            continue
          }
          if (record === undefined) continue
          batch.push(record)
          if (batch.length >= batchSize) {
            await write(batch)
            count += batch.length
            batch = []
          }
        }
        if (batch.length > 0) {
          await write(batch)
          count += batch.length
        }
        return count
      }

      await store.beginImport(meta)
      stats.rows.code = await load('code.csv', toCode, (b) => store.upsertCodes(b))
      if (update) {
        for (const table of ['enterprise', 'denomination', 'address', 'activity'] as KboTable[]) {
          stats.rows.deleted += await load(
            `${table}_delete.csv`,
            (row): string | null | undefined => {
              const number = (row.EntityNumber ?? row.EnterpriseNumber)?.trim()
              if (!number) return null
              return keep(number) ? number : undefined
            },
            (numbers) => store.deleteRows(table, numbers),
          )
        }
      }
      stats.rows.enterprise = await load(fileName('enterprise'), toEnterprise, (b) =>
        store.upsertEnterprises(b),
      )
      stats.rows.denomination = await load(
        fileName('denomination'),
        (row) => filterEntity(toDenomination(row), keep),
        (b) => store.insertDenominations(b),
      )
      stats.rows.address = await load(
        fileName('address'),
        (row) => filterEntity(toAddress(row), keep),
        (b) => store.insertAddresses(b),
      )
      stats.rows.activity = await load(
        fileName('activity'),
        (row) => filterEntity(toActivity(row), keep),
        (b) => store.insertActivities(b),
      )
      await store.finishImport(meta, clock.now())
      return stats
    },
  }
}

/** null: unreadable row (counted as skipped); undefined: deliberately left out (an establishment). */
function filterEntity<T extends { entity_number: string }>(
  record: T | null,
  keep: (n: string) => boolean,
): T | null | undefined {
  if (record === null) return null
  return keep(record.entity_number) ? record : undefined
}

function parseCsv(stream: Readable): AsyncIterable<Row> {
  return stream.pipe(
    parse({
      columns: true,
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      relax_quotes: true,
    }),
  )
}

async function readMeta(source: KboFileSource): Promise<KboImportMeta> {
  const values = new Map<string, string>()
  const stream = await source.open('meta.csv')
  if (stream) {
    for await (const row of parseCsv(stream)) {
      if (row.Variable) values.set(row.Variable, row.Value ?? '')
    }
  }
  let type = values.get('ExtractType')?.toLowerCase()
  if (type !== 'full' && type !== 'update') {
    const probe = await source.open('enterprise_insert.csv')
    probe?.destroy()
    type = probe ? 'update' : 'full'
  }
  return {
    extract_type: type as 'full' | 'update',
    extract_number: values.get('ExtractNumber') || null,
    snapshot_date: kboDate(values.get('SnapshotDate')),
    extract_timestamp: values.get('ExtractTimestamp') || null,
    version: values.get('Version') || null,
  }
}

/** `dd-mm-yyyy` (the files' date format) to `yyyy-mm-dd`; anything else to null. */
export function kboDate(value: string | undefined): string | null {
  const match = /^(\d{2})-(\d{2})-(\d{4})$/.exec(value?.trim() ?? '')
  return match ? `${match[3]}-${match[2]}-${match[1]}` : null
}

const text = (value: string | undefined): string | null => {
  const trimmed = value?.trim()
  return trimmed ? trimmed : null
}

function toEnterprise(row: Row): KboEnterpriseRecord | null {
  const number = row.EnterpriseNumber?.trim()
  if (!number || !ENTERPRISE_NUMBER.test(number)) return null
  return {
    enterprise_number: number,
    status: text(row.Status) ?? 'AC',
    juridical_situation: text(row.JuridicalSituation) ?? '000',
    type_of_enterprise: text(row.TypeOfEnterprise) ?? '0',
    juridical_form: text(row.JuridicalForm),
    juridical_form_cac: text(row.JuridicalFormCAC),
    start_date: kboDate(row.StartDate),
  }
}

function toDenomination(row: Row): KboDenominationRecord | null {
  const number = row.EntityNumber?.trim()
  const name = text(row.Denomination)
  if (!number || !name) return null
  return {
    entity_number: number,
    language: text(row.Language) ?? '0',
    type_of_denomination: text(row.TypeOfDenomination) ?? '001',
    denomination: name,
  }
}

function toAddress(row: Row): KboAddressRecord | null {
  const number = row.EntityNumber?.trim()
  const type = text(row.TypeOfAddress)
  if (!number || !type) return null
  return {
    entity_number: number,
    type_of_address: type,
    country_nl: text(row.CountryNL),
    country_fr: text(row.CountryFR),
    zipcode: text(row.Zipcode),
    municipality_nl: text(row.MunicipalityNL),
    municipality_fr: text(row.MunicipalityFR),
    street_nl: text(row.StreetNL),
    street_fr: text(row.StreetFR),
    house_number: text(row.HouseNumber),
    box: text(row.Box),
    extra_address_info: text(row.ExtraAddressInfo),
    date_striking_off: kboDate(row.DateStrikingOff),
  }
}

function toActivity(row: Row): KboActivityRecord | null {
  const number = row.EntityNumber?.trim()
  const code = text(row.NaceCode)
  if (!number || !code) return null
  return {
    entity_number: number,
    activity_group: text(row.ActivityGroup) ?? '',
    nace_version: text(row.NaceVersion) ?? '',
    nace_code: code,
    classification: text(row.Classification) ?? '',
  }
}

function toCode(row: Row): KboCodeRecord | null {
  const category = text(row.Category)
  const code = text(row.Code)
  if (!category || !code) return null
  return { category, code, language: text(row.Language) ?? '', description: row.Description?.trim() ?? '' }
}
