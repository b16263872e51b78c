import { type Clock, systemClock } from '../context.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import type { KboActivityRecord, KboAddressRecord, KboEnterpriseBundle, KboStore } from './kbo-store.ts'
import { runSourceCall } from './source-call.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

/** A Belgian enterprise as held in the imported KBO/CBE open data. */
export interface KboEnterprise {
  /** false: no active or formerly seen enterprise with this number in the open data. */
  found: boolean
  /** Dotted form, `0200.065.765`. */
  enterprise_number: string
  /** Official name (denomination type 001) in the preferred language. */
  name: string | null
  names: { language: 'nl' | 'fr' | 'de' | 'en' | 'unknown'; type: KboNameType; name: string }[]
  /**
   * `active`: in the latest extract (status AC). `stopped`: it left the open data, which holds
   * active entities only. null when not found.
   */
  status: 'active' | 'stopped' | null
  juridical_situation: { code: string; description: string | null } | null
  juridical_form: { code: string; description: string | null } | null
  type_of_enterprise: 'legal_person' | 'natural_person' | null
  start_date: string | null
  /** Registered seat (REGO) not struck off; a branch address (ABBR) when there is no seat. */
  address: KboAddress | null
  /** NACE codes of the newest NACE version the enterprise has, main activities first. */
  nace_codes: { code: string; version: string; main: boolean; description: string | null }[]
  /** Extract the answer comes from. */
  dataset: { snapshot_date: string | null; extract_number: string | null }
  not_found_reason?: 'invalid_number' | 'not_in_open_data'
}

export type KboNameType = 'name' | 'abbreviation' | 'commercial_name' | 'branch_name' | 'other'

export interface KboAddress {
  street: string | null
  house_number: string | null
  box: string | null
  zipcode: string | null
  municipality: string | null
  /** null for a Belgian address (the files leave the country empty then). */
  country: string | null
  type: string
}

export interface KboLookupOptions {
  store: KboStore
  clock?: Clock
  /** Store calls are local but can still hang (database). Default 2000 ms. */
  timeoutMs?: number
  breaker?: CircuitBreaker
  /** Preferred languages for names, addresses and code descriptions. Default Dutch, French. */
  languages?: ('nl' | 'fr' | 'de' | 'en')[]
  /** True while an extract is being imported (the first import at start-up). */
  importing?: () => boolean
}

export interface KboLookup {
  readonly source: 'kbo'
  /** Accepts `0200.065.765`, `0200065765`, `BE0200065765` or the old 9-digit form. */
  lookupEnterprise(enterpriseNumber: string): Promise<SourceResult<KboEnterprise>>
  /**
   * Whether the open data can be looked up: `loaded`, `importing` (the first import runs) or
   * `absent` (never imported). The service's own state, checked before a call is charged.
   */
  datasetState(): Promise<'loaded' | 'importing' | 'absent'>
}

const LANGUAGE_CODE: Record<string, KboEnterprise['names'][number]['language']> = {
  '1': 'fr',
  '2': 'nl',
  '3': 'de',
  '4': 'en',
}
const LANGUAGE_DIGIT = { fr: '1', nl: '2', de: '3', en: '4' } as const
const NAME_TYPE: Record<string, KboNameType> = {
  '001': 'name',
  '002': 'abbreviation',
  '003': 'commercial_name',
  '004': 'branch_name',
}

/**
 * Enterprise lookup on the locally imported KBO open data (Belgium's Crossroads Bank for
 * Enterprises). An enterprise that left the open data is reported `stopped` with its last
 * names; a number never seen is `found: false`. A data set never imported is `unavailable` /
 * `dataset_not_loaded`, never "not found". Spec: entity check "registry KVK/CBE".
 */
export function createKboLookup(options: KboLookupOptions): KboLookup {
  const { store } = options
  const clock = options.clock ?? systemClock
  const languages = options.languages ?? ['nl', 'fr']
  const codeLanguages = [...languages.map((l) => l.toUpperCase()), 'NL', 'FR', 'DE']

  const describe = (category: string, code: string) => store.describeCode(category, code, codeLanguages)

  return {
    source: 'kbo',
    async datasetState() {
      if (await store.getImportState()) return 'loaded'
      return options.importing?.() ? 'importing' : 'absent'
    },
    lookupEnterprise(input) {
      return runSourceCall({
        source: 'kbo',
        clock,
        timeoutMs: options.timeoutMs ?? 2000,
        breaker: options.breaker,
        call: async () => {
          try {
            const state = await store.getImportState()
            if (!state)
              throw new UpstreamFailure('dataset_not_loaded', 'no KBO open data extract imported yet')
            const dataset = { snapshot_date: state.snapshot_date, extract_number: state.extract_number }
            const number = normaliseEnterpriseNumber(input)
            if (!number) return notFound(input.trim(), dataset, 'invalid_number')
            const bundle = await store.getEnterprise(number)
            if (!bundle) return notFound(number, dataset, 'not_in_open_data')
            return await toEnterprise(bundle, dataset)
          } catch (error) {
            if (error instanceof UpstreamFailure) throw error
            throw new UpstreamFailure('store_error', error instanceof Error ? error.message : String(error))
          }
        },
      })
    },
  }

  async function toEnterprise(
    bundle: KboEnterpriseBundle,
    dataset: KboEnterprise['dataset'],
  ): Promise<KboEnterprise> {
    const { enterprise } = bundle
    const names = bundle.denominations.map((d) => ({
      language: LANGUAGE_CODE[d.language] ?? ('unknown' as const),
      type: NAME_TYPE[d.type_of_denomination] ?? ('other' as const),
      name: d.denomination,
    }))
    const official = bundle.denominations.filter((d) => d.type_of_denomination === '001')
    const preferred =
      languages.map((l) => official.find((d) => d.language === LANGUAGE_DIGIT[l])).find(Boolean) ??
      official[0]
    const situation = enterprise.juridical_situation
    const form = enterprise.juridical_form_cac ?? enterprise.juridical_form
    return {
      found: true,
      enterprise_number: enterprise.enterprise_number,
      name: preferred?.denomination ?? bundle.denominations[0]?.denomination ?? null,
      names,
      status: bundle.stopped_in_extract !== null || enterprise.status !== 'AC' ? 'stopped' : 'active',
      juridical_situation: { code: situation, description: await describe('JuridicalSituation', situation) },
      juridical_form: form ? { code: form, description: await describe('JuridicalForm', form) } : null,
      type_of_enterprise:
        enterprise.type_of_enterprise === '2'
          ? 'legal_person'
          : enterprise.type_of_enterprise === '1'
            ? 'natural_person'
            : null,
      start_date: enterprise.start_date,
      address: pickAddress(bundle.addresses, languages[0] ?? 'nl'),
      nace_codes: await naceCodes(bundle.activities),
      dataset,
    }
  }

  async function naceCodes(activities: KboActivityRecord[]): Promise<KboEnterprise['nace_codes']> {
    const newest =
      activities
        .map((a) => a.nace_version)
        .sort()
        .at(-1) ?? ''
    const byCode = new Map<string, boolean>()
    for (const a of activities) {
      if (a.nace_version !== newest) continue
      byCode.set(a.nace_code, (byCode.get(a.nace_code) ?? false) || a.classification === 'MAIN')
    }
    const list = [...byCode].sort(([ca, ma], [cb, mb]) => Number(mb) - Number(ma) || ca.localeCompare(cb))
    return Promise.all(
      list.map(async ([code, main]) => ({
        code,
        version: newest,
        main,
        description: await describe(`Nace${newest}`, code),
      })),
    )
  }
}

function pickAddress(addresses: KboAddressRecord[], language: string): KboAddress | null {
  const current = addresses.filter((a) => a.date_striking_off === null)
  const chosen =
    current.find((a) => a.type_of_address === 'REGO') ?? current.find((a) => a.type_of_address === 'ABBR')
  if (!chosen) return null
  const fr = language === 'fr'
  return {
    street: (fr ? chosen.street_fr : chosen.street_nl) ?? chosen.street_nl ?? chosen.street_fr,
    house_number: chosen.house_number,
    box: chosen.box,
    zipcode: chosen.zipcode,
    municipality:
      (fr ? chosen.municipality_fr : chosen.municipality_nl) ??
      chosen.municipality_nl ??
      chosen.municipality_fr,
    country: (fr ? chosen.country_fr : chosen.country_nl) ?? chosen.country_nl ?? chosen.country_fr,
    type: chosen.type_of_address,
  }
}

function notFound(
  number: string,
  dataset: KboEnterprise['dataset'],
  reason: 'invalid_number' | 'not_in_open_data',
): KboEnterprise {
  return {
    found: false,
    enterprise_number: number,
    name: null,
    names: [],
    status: null,
    juridical_situation: null,
    juridical_form: null,
    type_of_enterprise: null,
    start_date: null,
    address: null,
    nace_codes: [],
    dataset,
    not_found_reason: reason,
  }
}

/**
 * Belgian enterprise number to the dotted form of the KBO files, or null when it is not one:
 * 10 digits starting with 0 or 1 (a 9-digit old number gets a leading 0), the last two being
 * 97 minus the first eight modulo 97.
 */
export function normaliseEnterpriseNumber(input: string): string | null {
  let digits = input
    .trim()
    .toUpperCase()
    .replace(/^BE/, '')
    .replace(/[\s.\-/]/g, '')
  if (/^\d{9}$/.test(digits)) digits = `0${digits}`
  if (!/^[01]\d{9}$/.test(digits)) return null
  const check = 97 - (Number(digits.slice(0, 8)) % 97)
  if (check !== Number(digits.slice(8))) return null
  return `${digits.slice(0, 4)}.${digits.slice(4, 7)}.${digits.slice(7)}`
}
