import { and, eq, inArray, sql } from 'drizzle-orm'
import type {
  KboDenominationRecord,
  KboEnterpriseRecord,
  KboImportMeta,
  KboStore,
  KboTable,
} from '../sources/index.ts'
import type { Db } from './database.ts'
import {
  kboActivities,
  kboAddresses,
  kboCodes,
  kboDenominations,
  kboEnterprises,
  kboImportState,
  kboPendingStops,
  kboStopped,
} from './schema.ts'

const STATE_ID = 1

type EnterpriseRow = typeof kboEnterprises.$inferSelect

const toEnterprise = (row: EnterpriseRow): KboEnterpriseRecord => ({
  enterprise_number: row.enterpriseNumber,
  status: row.status,
  juridical_situation: row.juridicalSituation,
  type_of_enterprise: row.typeOfEnterprise,
  juridical_form: row.juridicalForm,
  juridical_form_cac: row.juridicalFormCac,
  start_date: row.startDate,
})

const toDenomination = (row: typeof kboDenominations.$inferSelect): KboDenominationRecord => ({
  entity_number: row.entityNumber,
  language: row.language,
  type_of_denomination: row.typeOfDenomination,
  denomination: row.denomination,
})

/**
 * The KBO open data on the service database, keeping the contract of core/sources' in-memory
 * KboStore: a full extract is written as a new generation and swapped in at `finishImport`
 * (lookups see the old data until then); enterprises it no longer holds, and enterprises an
 * update extract deleted without re-inserting, are kept as stopped with their names. One
 * importer at a time (the importer is a single start-up or operator job).
 */
export function createKboDatabaseStore(db: Db): KboStore {
  let target: number | null = null

  const state = async () => {
    const rows = await db.select().from(kboImportState).where(eq(kboImportState.id, STATE_ID))
    return rows[0] ?? null
  }
  const requireTarget = () => {
    if (target === null) throw new Error('KBO import not begun')
    return target
  }

  return {
    async beginImport(meta) {
      const current = await state()
      const live = current?.liveGeneration ?? null
      if (meta.extract_type === 'full' || live === null) {
        const next = Math.max(live ?? 0, current?.buildingGeneration ?? 0) + 1
        await deleteGeneration(db, next)
        await db
          .insert(kboImportState)
          .values({ id: STATE_ID, buildingGeneration: next })
          .onConflictDoUpdate({ target: kboImportState.id, set: { buildingGeneration: next } })
        target = next
      } else {
        target = live
      }
      await db.delete(kboPendingStops)
    },
    async upsertEnterprises(batch) {
      if (batch.length === 0) return
      const generation = requireTarget()
      await db
        .insert(kboEnterprises)
        .values(
          batch.map((row) => ({
            generation,
            enterpriseNumber: row.enterprise_number,
            status: row.status,
            juridicalSituation: row.juridical_situation,
            typeOfEnterprise: row.type_of_enterprise,
            juridicalForm: row.juridical_form,
            juridicalFormCac: row.juridical_form_cac,
            startDate: row.start_date,
          })),
        )
        .onConflictDoUpdate({
          target: [kboEnterprises.generation, kboEnterprises.enterpriseNumber],
          set: {
            status: sql`excluded.status`,
            juridicalSituation: sql`excluded.juridical_situation`,
            typeOfEnterprise: sql`excluded.type_of_enterprise`,
            juridicalForm: sql`excluded.juridical_form`,
            juridicalFormCac: sql`excluded.juridical_form_cac`,
            startDate: sql`excluded.start_date`,
          },
        })
      const numbers = batch.map((row) => row.enterprise_number)
      await db.delete(kboPendingStops).where(inArray(kboPendingStops.enterpriseNumber, numbers))
      // A re-inserted enterprise is active again; in a full import that waits for the swap.
      const current = await state()
      if (current?.liveGeneration === generation) {
        await db.delete(kboStopped).where(inArray(kboStopped.enterpriseNumber, numbers))
      }
    },
    async insertDenominations(batch) {
      if (batch.length === 0) return
      const generation = requireTarget()
      await db.insert(kboDenominations).values(
        batch.map((row) => ({
          generation,
          entityNumber: row.entity_number,
          language: row.language,
          typeOfDenomination: row.type_of_denomination,
          denomination: row.denomination,
        })),
      )
    },
    async insertAddresses(batch) {
      if (batch.length === 0) return
      const generation = requireTarget()
      await db.insert(kboAddresses).values(
        batch.map((row) => ({
          generation,
          entityNumber: row.entity_number,
          typeOfAddress: row.type_of_address,
          countryNl: row.country_nl,
          countryFr: row.country_fr,
          zipcode: row.zipcode,
          municipalityNl: row.municipality_nl,
          municipalityFr: row.municipality_fr,
          streetNl: row.street_nl,
          streetFr: row.street_fr,
          houseNumber: row.house_number,
          box: row.box,
          extraAddressInfo: row.extra_address_info,
          dateStrikingOff: row.date_striking_off,
        })),
      )
    },
    async insertActivities(batch) {
      if (batch.length === 0) return
      const generation = requireTarget()
      await db.insert(kboActivities).values(
        batch.map((row) => ({
          generation,
          entityNumber: row.entity_number,
          activityGroup: row.activity_group,
          naceVersion: row.nace_version,
          naceCode: row.nace_code,
          classification: row.classification,
        })),
      )
    },
    async upsertCodes(batch) {
      if (batch.length === 0) return
      await db
        .insert(kboCodes)
        .values(batch)
        .onConflictDoUpdate({
          target: [kboCodes.category, kboCodes.code, kboCodes.language],
          set: { description: sql`excluded.description` },
        })
    },
    async deleteRows(table: KboTable, numbers) {
      if (numbers.length === 0) return
      const generation = requireTarget()
      if (table === 'enterprise') {
        const rows = await db
          .select()
          .from(kboEnterprises)
          .where(
            and(eq(kboEnterprises.generation, generation), inArray(kboEnterprises.enterpriseNumber, numbers)),
          )
        if (rows.length > 0) {
          const found = rows.map((row) => row.enterpriseNumber)
          const names = await db
            .select()
            .from(kboDenominations)
            .where(
              and(eq(kboDenominations.generation, generation), inArray(kboDenominations.entityNumber, found)),
            )
          await db
            .insert(kboPendingStops)
            .values(
              rows.map((row) => ({
                enterpriseNumber: row.enterpriseNumber,
                enterprise: toEnterprise(row),
                names: names.filter((n) => n.entityNumber === row.enterpriseNumber).map(toDenomination),
              })),
            )
            .onConflictDoUpdate({
              target: kboPendingStops.enterpriseNumber,
              set: { enterprise: sql`excluded.enterprise`, names: sql`excluded.names` },
            })
          await db
            .delete(kboEnterprises)
            .where(
              and(eq(kboEnterprises.generation, generation), inArray(kboEnterprises.enterpriseNumber, found)),
            )
        }
        return
      }
      const tables = {
        denomination: kboDenominations,
        address: kboAddresses,
        activity: kboActivities,
      } as const
      const rows = tables[table]
      await db.delete(rows).where(and(eq(rows.generation, generation), inArray(rows.entityNumber, numbers)))
    },
    async finishImport(meta: KboImportMeta, importedAt: Date) {
      const generation = requireTarget()
      const extract = meta.extract_number ?? meta.snapshot_date ?? importedAt.toISOString()
      const current = await state()
      const previous = current?.liveGeneration ?? null
      const stateValues = {
        extractType: meta.extract_type,
        extractNumber: meta.extract_number,
        snapshotDate: meta.snapshot_date,
        importedAt: importedAt.toISOString(),
      }
      await db.transaction(async (tx) => {
        if (previous !== generation) {
          if (previous !== null) {
            // Enterprises of the old data the new extract no longer holds: stopped, with names.
            await tx.execute(sql`
              insert into kbo_stopped (enterprise_number, enterprise, names, extract)
              select e.enterprise_number,
                jsonb_build_object(
                  'enterprise_number', e.enterprise_number, 'status', e.status,
                  'juridical_situation', e.juridical_situation, 'type_of_enterprise', e.type_of_enterprise,
                  'juridical_form', e.juridical_form, 'juridical_form_cac', e.juridical_form_cac,
                  'start_date', e.start_date),
                coalesce((select jsonb_agg(jsonb_build_object(
                    'entity_number', d.entity_number, 'language', d.language,
                    'type_of_denomination', d.type_of_denomination, 'denomination', d.denomination) order by d.id)
                  from kbo_denominations d
                  where d.generation = ${previous} and d.entity_number = e.enterprise_number), '[]'::jsonb),
                ${extract}
              from kbo_enterprises e
              where e.generation = ${previous}
                and not exists (select 1 from kbo_enterprises n
                  where n.generation = ${generation} and n.enterprise_number = e.enterprise_number)
              on conflict (enterprise_number) do update
                set enterprise = excluded.enterprise, names = excluded.names, extract = excluded.extract`)
          }
          await tx.execute(sql`
            delete from kbo_stopped s using kbo_enterprises n
            where n.generation = ${generation} and n.enterprise_number = s.enterprise_number`)
          await tx
            .update(kboImportState)
            .set({ liveGeneration: generation, buildingGeneration: null, ...stateValues })
            .where(eq(kboImportState.id, STATE_ID))
        } else {
          await tx.execute(sql`
            insert into kbo_stopped (enterprise_number, enterprise, names, extract)
            select p.enterprise_number, p.enterprise, p.names, ${extract}
            from kbo_pending_stops p
            where not exists (select 1 from kbo_enterprises e
              where e.generation = ${generation} and e.enterprise_number = p.enterprise_number)
            on conflict (enterprise_number) do update
              set enterprise = excluded.enterprise, names = excluded.names, extract = excluded.extract`)
          await tx.delete(kboPendingStops)
          await tx.update(kboImportState).set(stateValues).where(eq(kboImportState.id, STATE_ID))
        }
      })
      if (previous !== null && previous !== generation) await deleteGeneration(db, previous)
      target = null
    },
    async getEnterprise(number) {
      const live = (await state())?.liveGeneration
      if (live === null || live === undefined) return null
      const [enterprise] = await db
        .select()
        .from(kboEnterprises)
        .where(and(eq(kboEnterprises.generation, live), eq(kboEnterprises.enterpriseNumber, number)))
      if (enterprise) {
        const [denominations, addresses, activities] = await Promise.all([
          db
            .select()
            .from(kboDenominations)
            .where(and(eq(kboDenominations.generation, live), eq(kboDenominations.entityNumber, number)))
            .orderBy(kboDenominations.id),
          db
            .select()
            .from(kboAddresses)
            .where(and(eq(kboAddresses.generation, live), eq(kboAddresses.entityNumber, number)))
            .orderBy(kboAddresses.id),
          db
            .select()
            .from(kboActivities)
            .where(and(eq(kboActivities.generation, live), eq(kboActivities.entityNumber, number)))
            .orderBy(kboActivities.id),
        ])
        return {
          enterprise: toEnterprise(enterprise),
          stopped_in_extract: null,
          denominations: denominations.map(toDenomination),
          addresses: addresses.map((row) => ({
            entity_number: row.entityNumber,
            type_of_address: row.typeOfAddress,
            country_nl: row.countryNl,
            country_fr: row.countryFr,
            zipcode: row.zipcode,
            municipality_nl: row.municipalityNl,
            municipality_fr: row.municipalityFr,
            street_nl: row.streetNl,
            street_fr: row.streetFr,
            house_number: row.houseNumber,
            box: row.box,
            extra_address_info: row.extraAddressInfo,
            date_striking_off: row.dateStrikingOff,
          })),
          activities: activities.map((row) => ({
            entity_number: row.entityNumber,
            activity_group: row.activityGroup,
            nace_version: row.naceVersion,
            nace_code: row.naceCode,
            classification: row.classification,
          })),
        }
      }
      const [stopped] = await db.select().from(kboStopped).where(eq(kboStopped.enterpriseNumber, number))
      if (!stopped) return null
      return {
        enterprise: stopped.enterprise as KboEnterpriseRecord,
        stopped_in_extract: stopped.extract,
        denominations: stopped.names as KboDenominationRecord[],
        addresses: [],
        activities: [],
      }
    },
    async describeCode(category, code, languages) {
      if (languages.length === 0) return null
      const rows = await db
        .select()
        .from(kboCodes)
        .where(
          and(
            eq(kboCodes.category, category),
            eq(kboCodes.code, code),
            inArray(kboCodes.language, languages),
          ),
        )
      for (const language of languages) {
        const found = rows.find((row) => row.language === language)
        if (found) return found.description
      }
      return null
    },
    async getImportState() {
      const current = await state()
      if (!current?.importedAt || current.liveGeneration === null) return null
      return {
        extract_type: current.extractType as 'full' | 'update',
        extract_number: current.extractNumber,
        snapshot_date: current.snapshotDate,
        imported_at: current.importedAt,
      }
    },
  }
}

async function deleteGeneration(db: Db, generation: number): Promise<void> {
  await db.delete(kboActivities).where(eq(kboActivities.generation, generation))
  await db.delete(kboAddresses).where(eq(kboAddresses.generation, generation))
  await db.delete(kboDenominations).where(eq(kboDenominations.generation, generation))
  await db.delete(kboEnterprises).where(eq(kboEnterprises.generation, generation))
}
