import type { FakeBehaviour, FakeCommonOptions } from './fake-behaviour.ts'
import { type FakeHttpServer, type FakeResponse, startFakeHttpServer } from './fake-http-server.ts'

/**
 * Basisprofiel bodies in the shape of KVK's Basisprofiel API v1 (developers.kvk.nl). The numbers
 * and names are those of KVK's public test environment (test companies, not real ones); the
 * other values are filled in by hand in the documented format (dates `YYYYMMDD`, `Ja`/`Nee`).
 */
export const KVK_TEST_PROFILES: Record<string, unknown> = {
  '68750110': {
    kvkNummer: '68750110',
    indNonMailing: 'Ja',
    naam: 'Test BV Donald',
    formeleRegistratiedatum: '20170425',
    materieleRegistratie: { datumAanvang: '20170424' },
    totaalWerkzamePersonen: 2,
    statutaireNaam: 'Test BV Donald',
    handelsnamen: [
      { naam: 'Test BV Donald', volgorde: 0 },
      { naam: 'Test Donald Boot', volgorde: 1 },
    ],
    sbiActiviteiten: [
      { sbiCode: '6420', sbiOmschrijving: 'Financiële holdings', indHoofdactiviteit: 'Ja' },
      {
        sbiCode: '01133',
        sbiOmschrijving: 'Teelt van groenten in de volle grond',
        indHoofdactiviteit: 'Nee',
      },
    ],
    links: [{ rel: 'self', href: 'https://api.kvk.nl/test/api/v1/basisprofielen/68750110' }],
    _embedded: {
      hoofdvestiging: {
        vestigingsnummer: '000037178598',
        kvkNummer: '68750110',
        formeleRegistratiedatum: '20170425',
        materieleRegistratie: { datumAanvang: '20170424' },
        eersteHandelsnaam: 'Test BV Donald',
        indHoofdvestiging: 'Ja',
        indCommercieleVestiging: 'Ja',
        voltijdWerkzamePersonen: 2,
        totaalWerkzamePersonen: 2,
        deeltijdWerkzamePersonen: 0,
        adressen: [
          {
            type: 'bezoekadres',
            volledigAdres: 'Hizzaarderlaan 3 A 8823SJ Lollum',
            straatnaam: 'Hizzaarderlaan',
            huisnummer: 3,
            huisletter: 'A',
            postcode: '8823SJ',
            plaats: 'Lollum',
            land: 'Nederland',
          },
        ],
        websites: ['www.testbvdonald.nl'],
        links: [],
      },
      eigenaar: {
        rsin: '857587973',
        rechtsvorm: 'BeslotenVennootschap',
        uitgebreideRechtsvorm: 'Besloten Vennootschap',
        links: [],
      },
    },
  },
  '69599068': {
    kvkNummer: '69599068',
    indNonMailing: 'Ja',
    naam: 'Test Stichting Bolderbast',
    formeleRegistratiedatum: '20150622',
    materieleRegistratie: { datumAanvang: '20150101', datumEinde: '20201231' },
    statutaireNaam: 'Stichting Bolderbast',
    handelsnamen: [{ naam: 'Test Stichting Bolderbast', volgorde: 1 }],
    sbiActiviteiten: [
      { sbiCode: '86101', sbiOmschrijving: 'Universitair medisch centra', indHoofdactiviteit: 'Ja' },
    ],
    links: [],
    _embedded: {
      eigenaar: { rechtsvorm: 'Stichting', uitgebreideRechtsvorm: 'Stichting', links: [] },
    },
  },
}

/**
 * Errors the fake can answer with, each with KVK's real status and `{ fout: [...] }` body
 * (codes and texts from KVK's documented list).
 */
export const KVK_ERRORS: Record<string, FakeResponse> = {
  IPD5200: fout(
    404,
    'IPD5200',
    'Er zijn geen gegevens gevonden die voldoen aan de opgegeven zoekparameters.',
  ),
  IPD0005: fout(404, 'IPD0005', 'Op basis van het KVK-nummer 12345678 kan het product niet worden geleverd.'),
  IPD0004: fout(400, 'IPD0004', 'Het KvK nummer 1234 is niet valide.'),
  IPD1002: fout(
    404,
    'IPD1002',
    'De gegevens zijn tijdelijk niet leverbaar omdat deze in behandeling zijn. Probeer het later nog eens.',
  ),
  IPD1003: fout(
    404,
    'IPD1003',
    'De gegevens zijn tijdelijk niet leverbaar. Probeer het over 5 minuten nog een keer.',
  ),
  IPD1999: fout(400, 'IPD1999', 'De volgende opgegeven parameter(s) is(zijn) ongeldig: naam'),
  IPD9999: fout(500, 'IPD9999', 'Algemene technische fout.'),
  // KVK's API gateway refuses a missing or wrong key with 401; its body is not documented, so
  // the fake sends none and the client reads the status only.
  unauthorized: { status: 401 },
  http_503: { status: 503, body: '<html><body>Service Unavailable</body></html>' },
  malformed: { status: 200, body: 'not json' },
}

function fout(status: number, code: string, omschrijving: string): FakeResponse {
  return { status, body: { fout: [{ code, omschrijving }] } }
}

export interface FakeKvkOptions extends FakeCommonOptions {
  /** The key the fake accepts in the `apikey` header. Default `test-kvk-key`. */
  apiKey?: string
  profiles?: Record<string, unknown>
}

export interface FakeKvkServer extends FakeHttpServer {
  readonly apiKey: string
}

/**
 * A fake KVK API (Zoeken v2 and Basisprofiel v1) on 127.0.0.1. An unknown number answers
 * IPD0005 (basisprofiel) or IPD5200 (zoeken), as KVK does.
 */
export async function startFakeKvkServer(options: FakeKvkOptions = {}): Promise<FakeKvkServer> {
  const apiKey = options.apiKey ?? 'test-kvk-key'
  const profiles = options.profiles ?? KVK_TEST_PROFILES
  const server = await startFakeHttpServer(
    'kvk',
    (request, behaviour: FakeBehaviour) => {
      if (behaviour.mode === 'error') return KVK_ERRORS[behaviour.error ?? 'IPD9999'] ?? KVK_ERRORS.IPD9999!
      if (request.headers.apikey !== apiKey) return KVK_ERRORS.unauthorized!
      const profileMatch = /^\/api\/v1\/basisprofielen\/([^/]+)$/.exec(request.path)
      if (profileMatch) {
        const number = decodeURIComponent(profileMatch[1]!)
        if (!/^\d{8}$/.test(number)) return fout(400, 'IPD0004', `Het KvK nummer ${number} is niet valide.`)
        const profile = profiles[number]
        return profile
          ? { status: 200, body: profile }
          : fout(
              404,
              'IPD0005',
              `Op basis van het KVK-nummer ${number} kan het product niet worden geleverd.`,
            )
      }
      if (request.path === '/api/v2/zoeken') return search(request.query, profiles)
      return {
        status: 404,
        body: { fout: [{ code: 'IPD0001', omschrijving: 'Het gevraagde product bestaat niet' }] },
      }
    },
    options,
  )
  return Object.assign(server, { apiKey })
}

function search(query: URLSearchParams, profiles: Record<string, unknown>): FakeResponse {
  const number = query.get('kvkNummer')
  const name = query.get('naam')?.toLowerCase()
  const perPage = Number(query.get('resultatenPerPagina') ?? '10')
  const hits = Object.values(profiles)
    .map((p) => p as { kvkNummer: string; naam: string; materieleRegistratie?: { datumEinde?: string } })
    .filter(
      (p) =>
        (!number || p.kvkNummer === number) && (!name || p.naam.toLowerCase().split(/\s+/).includes(name)),
    )
    .filter(
      (p) => query.get('inclusiefInactieveRegistraties') === 'true' || !p.materieleRegistratie?.datumEinde,
    )
  if (hits.length === 0) return KVK_ERRORS.IPD5200!
  return {
    status: 200,
    body: {
      pagina: 1,
      resultatenPerPagina: perPage,
      totaal: hits.length,
      resultaten: hits.slice(0, perPage).map((p) => ({
        kvkNummer: p.kvkNummer,
        naam: p.naam,
        adres: {
          binnenlandsAdres: { type: 'bezoekadres', straatnaam: 'Hizzaarderlaan', plaats: 'Lollum' },
        },
        type: 'rechtspersoon',
        ...(p.materieleRegistratie?.datumEinde ? { actief: 'Nee' } : {}),
        links: [
          { rel: 'basisprofiel', href: `https://api.kvk.nl/test/api/v1/basisprofielen/${p.kvkNummer}` },
        ],
      })),
      links: [{ rel: 'self', href: 'https://api.kvk.nl/test/api/v2/zoeken' }],
    },
  }
}
