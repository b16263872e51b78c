import { z } from 'zod'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { failureForStatus, joinUrl, requestJson } from './http-json.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

/** A company as read from the KVK Basisprofiel API (Dutch Chamber of Commerce register). */
export interface KvkCompany {
  /** false: KVK answered that no such registration exists (IPD5200 / IPD0005 / IPD0004). */
  found: boolean
  kvk_number: string
  name: string | null
  statutory_name: string | null
  trade_names: string[]
  /** false when the registration has ended (materieleRegistratie.datumEinde not in the future). */
  active: boolean | null
  /** ISO date; `YYYY-MM` or `YYYY` when KVK records only part of it. */
  registered_on: string | null
  ended_on: string | null
  /** `rechtsvorm` of the owner, e.g. "BeslotenVennootschap". */
  legal_form: string | null
  /** `uitgebreideRechtsvorm`, e.g. "Besloten Vennootschap met gewone structuur". */
  legal_form_detail: string | null
  sbi_codes: { code: string; description: string; main: boolean }[]
  address: KvkAddress | null
  /** KVK code that said "not found" (IPD5200, IPD0005) or `invalid_number`. */
  not_found_code?: string
}

export interface KvkAddress {
  type: string | null
  street: string | null
  house_number: string | null
  postcode: string | null
  city: string | null
  country: string | null
  full: string | null
}

export interface KvkSearchHit {
  kvk_number: string
  branch_number: string | null
  name: string
  /** hoofdvestiging, nevenvestiging or rechtspersoon. */
  type: string | null
  active: boolean
  address: KvkAddress | null
}

export interface KvkSearchData {
  total: number
  results: KvkSearchHit[]
}

export interface KvkSearchQuery {
  name?: string
  kvkNumber?: string
  city?: string
  /** resultatenPerPagina, 1-100 (KVK's maximum). Default 10. */
  limit?: number
  includeInactive?: boolean
}

export interface KvkClientOptions extends SourceClientOptions {
  /** e.g. `https://api.kvk.nl` (production) or `https://api.kvk.nl/test`; no trailing `/api`. */
  baseUrl: string
  apiKey: string
}

export interface KvkClient {
  readonly source: 'kvk'
  readonly breaker: CircuitBreaker
  /** Basisprofiel API v1: `GET {base}/api/v1/basisprofielen/{kvkNummer}`. */
  lookupCompany(kvkNumber: string): Promise<SourceResult<KvkCompany>>
  /** Zoeken API v2: `GET {base}/api/v2/zoeken?...`. No results is `{ total: 0, results: [] }`. */
  searchCompanies(query: KvkSearchQuery): Promise<SourceResult<KvkSearchData>>
}

/**
 * KVK error codes (developers.kvk.nl "status codes"), as they appear in `{ fout: [{ code, omschrijving }] }`.
 * Not-found codes are answers; busy codes mean try later; the rest are failures.
 */
const NOT_FOUND_CODES = new Set(['IPD5200', 'IPD0005', 'IPD0004'])
const BUSY_CODES = new Set(['IPD1002', 'IPD1003'])
const REJECTED_CODES = new Set(['IPD0001', 'IPD0006', 'IPD0007', 'IPD0010', 'IPD1998', 'IPD1999', 'IPD5203'])

const Fout = z.object({
  fout: z.array(z.object({ code: z.string(), omschrijving: z.string().optional() })).min(1),
})

const Adres = z.object({
  type: z.string().nullish(),
  volledigAdres: z.string().nullish(),
  straatnaam: z.string().nullish(),
  huisnummer: z.union([z.number(), z.string()]).nullish(),
  huisletter: z.string().nullish(),
  huisnummerToevoeging: z.string().nullish(),
  postcode: z.string().nullish(),
  postbusnummer: z.union([z.number(), z.string()]).nullish(),
  plaats: z.string().nullish(),
  land: z.string().nullish(),
})

const Basisprofiel = z.object({
  kvkNummer: z.string(),
  naam: z.string().nullish(),
  formeleRegistratiedatum: z.string().nullish(),
  statutaireNaam: z.string().nullish(),
  materieleRegistratie: z
    .object({ datumAanvang: z.string().nullish(), datumEinde: z.string().nullish() })
    .nullish(),
  handelsnamen: z.array(z.object({ naam: z.string(), volgorde: z.number().nullish() })).nullish(),
  sbiActiviteiten: z
    .array(
      z.object({
        sbiCode: z.string(),
        sbiOmschrijving: z.string().nullish(),
        indHoofdactiviteit: z.string().nullish(),
      }),
    )
    .nullish(),
  _embedded: z
    .object({
      hoofdvestiging: z.object({ adressen: z.array(Adres).nullish() }).nullish(),
      eigenaar: z
        .object({
          rechtsvorm: z.string().nullish(),
          uitgebreideRechtsvorm: z.string().nullish(),
          adressen: z.array(Adres).nullish(),
        })
        .nullish(),
    })
    .nullish(),
})

const ZoekResultaten = z.object({
  totaal: z.number().nullish(),
  resultaten: z
    .array(
      z.object({
        kvkNummer: z.string(),
        vestigingsnummer: z.string().nullish(),
        naam: z.string().nullish(),
        type: z.string().nullish(),
        actief: z.string().nullish(),
        adres: z
          .object({
            binnenlandsAdres: Adres.nullish(),
            buitenlandsAdres: z
              .object({
                straatHuisnummer: z.string().nullish(),
                postcodeWoonplaats: z.string().nullish(),
                land: z.string().nullish(),
              })
              .nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
})

/**
 * KVK Handelsregister client (Zoeken v2, Basisprofiel v1, header `apikey`). Answers data for
 * every outcome: found active, found inactive (registration ended), not found (IPD5200 /
 * IPD0005, an `ok` answer), or unavailable with a reason (5xx, IPD9999, IPD1002/1003 busy,
 * 401/403 auth, timeout, refused connection, open circuit). DESIGN "Upstream sources".
 */
export function createKvkClient(options: KvkClientOptions): KvkClient {
  const { clock, timeoutMs, breaker, fetch } = resolveCommon(options)
  const headers = { apikey: options.apiKey, accept: 'application/json' }

  const readFout = (json: unknown) => {
    const parsed = Fout.safeParse(json)
    return parsed.success ? parsed.data.fout[0]! : undefined
  }

  const failureFor = (status: number, json: unknown): UpstreamFailure => {
    const fout = readFout(json)
    if (fout) {
      const detail = `${fout.code}${fout.omschrijving ? ` ${fout.omschrijving}` : ''}`
      if (BUSY_CODES.has(fout.code)) return new UpstreamFailure('upstream_busy', detail)
      if (status === 401 || status === 403) return new UpstreamFailure('auth_failed', detail)
      if (status === 429) return new UpstreamFailure('rate_limited', detail)
      if (REJECTED_CODES.has(fout.code) && status < 500)
        return new UpstreamFailure('request_rejected', detail)
      return new UpstreamFailure('upstream_error', detail)
    }
    return failureForStatus(status)
  }

  return {
    source: 'kvk',
    breaker,
    lookupCompany(kvkNumber) {
      const number = kvkNumber.trim()
      return runSourceCall({
        source: 'kvk',
        clock,
        timeoutMs,
        breaker,
        call: async (signal) => {
          if (!/^\d{8}$/.test(number)) return notFound(number, 'invalid_number')
          const url = joinUrl(options.baseUrl, `/api/v1/basisprofielen/${number}`)
          const res = await requestJson(fetch, url, { headers, signal })
          if (res.status === 200) {
            const parsed = Basisprofiel.safeParse(res.json)
            if (!parsed.success) throw new UpstreamFailure('invalid_response', 'basisprofiel shape')
            return toCompany(parsed.data, clock.now())
          }
          const fout = readFout(res.json)
          if (fout && NOT_FOUND_CODES.has(fout.code) && res.status < 500) return notFound(number, fout.code)
          throw failureFor(res.status, res.json)
        },
      })
    },
    searchCompanies(query) {
      return runSourceCall({
        source: 'kvk',
        clock,
        timeoutMs,
        breaker,
        call: async (signal) => {
          const params = new URLSearchParams()
          if (query.kvkNumber) params.set('kvkNummer', query.kvkNumber)
          if (query.name) params.set('naam', query.name)
          if (query.city) params.set('plaats', query.city)
          if (query.includeInactive) params.set('inclusiefInactieveRegistraties', 'true')
          params.set('resultatenPerPagina', String(Math.min(100, Math.max(1, query.limit ?? 10))))
          const url = `${joinUrl(options.baseUrl, '/api/v2/zoeken')}?${params}`
          const res = await requestJson(fetch, url, { headers, signal })
          if (res.status === 200) {
            const parsed = ZoekResultaten.safeParse(res.json)
            if (!parsed.success) throw new UpstreamFailure('invalid_response', 'zoeken shape')
            const results = (parsed.data.resultaten ?? []).map(toHit)
            return { total: parsed.data.totaal ?? results.length, results }
          }
          if (readFout(res.json)?.code === 'IPD5200' && res.status < 500) return { total: 0, results: [] }
          throw failureFor(res.status, res.json)
        },
      })
    },
  }
}

function notFound(kvkNumber: string, code: string): KvkCompany {
  return {
    found: false,
    kvk_number: kvkNumber,
    name: null,
    statutory_name: null,
    trade_names: [],
    active: null,
    registered_on: null,
    ended_on: null,
    legal_form: null,
    legal_form_detail: null,
    sbi_codes: [],
    address: null,
    not_found_code: code,
  }
}

function toCompany(profile: z.infer<typeof Basisprofiel>, now: Date): KvkCompany {
  const endedOn = kvkDate(profile.materieleRegistratie?.datumEinde)
  const registeredOn =
    kvkDate(profile.materieleRegistratie?.datumAanvang) ??
    kvkDate(profile.formeleRegistratiedatum ?? undefined)
  const addresses = [
    ...(profile._embedded?.hoofdvestiging?.adressen ?? []),
    ...(profile._embedded?.eigenaar?.adressen ?? []),
  ]
  const visiting = addresses.find((a) => a.type === 'bezoekadres') ?? addresses[0]
  return {
    found: true,
    kvk_number: profile.kvkNummer,
    name: profile.naam ?? null,
    statutory_name: profile.statutaireNaam ?? null,
    trade_names: [...(profile.handelsnamen ?? [])]
      .sort((a, b) => (a.volgorde ?? 0) - (b.volgorde ?? 0))
      .map((h) => h.naam),
    active: endedOn === null ? true : !hasStarted(endedOn, now),
    registered_on: registeredOn,
    ended_on: endedOn,
    legal_form: profile._embedded?.eigenaar?.rechtsvorm ?? null,
    legal_form_detail: profile._embedded?.eigenaar?.uitgebreideRechtsvorm ?? null,
    sbi_codes: (profile.sbiActiviteiten ?? []).map((a) => ({
      code: a.sbiCode,
      description: a.sbiOmschrijving ?? '',
      main: a.indHoofdactiviteit === 'Ja',
    })),
    address: visiting ? toAddress(visiting) : null,
  }
}

function toHit(r: NonNullable<z.infer<typeof ZoekResultaten>['resultaten']>[number]): KvkSearchHit {
  const domestic = r.adres?.binnenlandsAdres
  const foreign = r.adres?.buitenlandsAdres
  let address: KvkAddress | null = null
  if (domestic) address = toAddress(domestic)
  else if (foreign)
    address = {
      type: null,
      street: foreign.straatHuisnummer ?? null,
      house_number: null,
      postcode: null,
      city: foreign.postcodeWoonplaats ?? null,
      country: foreign.land ?? null,
      full:
        [foreign.straatHuisnummer, foreign.postcodeWoonplaats, foreign.land].filter(Boolean).join(', ') ||
        null,
    }
  return {
    kvk_number: r.kvkNummer,
    branch_number: r.vestigingsnummer ?? null,
    name: r.naam ?? '',
    type: r.type ?? null,
    active: r.actief !== 'Nee',
    address,
  }
}

function toAddress(a: z.infer<typeof Adres>): KvkAddress {
  const houseNumber =
    a.huisnummer === undefined || a.huisnummer === null
      ? null
      : `${a.huisnummer}${a.huisletter ?? ''}${a.huisnummerToevoeging ? ` ${a.huisnummerToevoeging}` : ''}`
  return {
    type: a.type ?? null,
    street: a.straatnaam ?? null,
    house_number: houseNumber,
    postcode: a.postcode ?? null,
    city: a.plaats ?? null,
    country: a.land ?? 'Nederland',
    full: a.volledigAdres ?? null,
  }
}

/**
 * KVK dates are `YYYYMMDD` with zeros for unknown parts (`20150600`, `20150000`, `00000000`).
 * Returns `YYYY-MM-DD`, `YYYY-MM`, `YYYY` or null.
 */
export function kvkDate(value: string | null | undefined): string | null {
  if (!value || !/^\d{8}$/.test(value)) return null
  const year = value.slice(0, 4)
  const month = value.slice(4, 6)
  const day = value.slice(6, 8)
  if (year === '0000') return null
  if (month === '00') return year
  if (day === '00') return `${year}-${month}`
  return `${year}-${month}-${day}`
}

/** True when a (possibly partial) ISO date's period has begun by `now`. */
function hasStarted(isoDate: string, now: Date): boolean {
  const [y, m = '01', d = '01'] = isoDate.split('-')
  return Date.UTC(Number(y), Number(m) - 1, Number(d)) <= now.getTime()
}
