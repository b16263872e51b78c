import type { FakeBehaviour, FakeCommonOptions } from './fake-behaviour.ts'
import {
  type FakeHttpServer,
  type FakeRequest,
  type FakeResponse,
  startFakeHttpServer,
} from './fake-http-server.ts'

/** One case the fake register holds (the fields getCase's inspubWebserviceInsolvente carries). */
export interface FakeCirCase {
  insolvencyNumber: string
  court: string
  legalPersonality: 'rechtspersoon' | 'natuurlijk persoon'
  name: string
  kvkNumber?: string
  publications: { id: string; date: string; description: string; code: string }[]
}

/** Hand-made cases: a bankrupt company (KVK 68750110) and an ended suspension of payments. */
export const CIR_FAKE_CASES: FakeCirCase[] = [
  {
    insolvencyNumber: 'F.13/25/412',
    court: 'Rechtbank Noord-Nederland',
    legalPersonality: 'rechtspersoon',
    name: 'Test BV Donald',
    kvkNumber: '68750110',
    publications: [
      {
        id: '13.lee.25.412.F.1300.1.25',
        date: '2025-03-04',
        description: 'uitspraak faillissement op 4 maart 2025',
        code: '1300',
      },
      {
        id: '13.lee.25.412.F.1301.1.25',
        date: '2025-04-10',
        description: 'vergadering van schuldeisers op 10 april 2025',
        code: '1301',
      },
    ],
  },
  {
    insolvencyNumber: 'S.09/24/7',
    court: 'Rechtbank Amsterdam',
    legalPersonality: 'rechtspersoon',
    name: 'Voorbeeld Handel B.V.',
    kvkNumber: '12345678',
    publications: [
      {
        id: '09.ams.24.7.S.3300.1.24',
        date: '2024-06-01',
        description: 'uitspraak surseance op 1 juni 2024',
        code: '3300',
      },
      {
        id: '09.ams.24.7.S.3307.1.24',
        date: '2024-11-20',
        description: 'einde surseance op 20 november 2024',
        code: '3307',
      },
    ],
  },
]

const NS = 'http://www.rechtspraak.nl/namespaces/cir01'
const INSPUB = 'http://www.rechtspraak.nl/namespaces/inspubber01'
const esc = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const xml = (body: string, status = 200): FakeResponse => ({
  status,
  headers: { 'content-type': 'text/xml; charset=utf-8' },
  body:
    '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
    `<soap:Body>${body}</soap:Body></soap:Envelope>`,
})

/** A SOAP 1.1 Fault as ASP.NET web services send it (HTTP 500). */
export function cirFault(message: string, code = 'soap:Server'): FakeResponse {
  return xml(
    `<soap:Fault><faultcode>${code}</faultcode><faultstring>${esc(message)}</faultstring><detail /></soap:Fault>`,
    500,
  )
}

const between = (text: string, tag: string) =>
  new RegExp(`<(?:\\w+:)?${tag}(?:\\s[^>]*)?>([^<]*)</(?:\\w+:)?${tag}>`).exec(text)?.[1]?.trim()

/**
 * A fake CIR.asmx (Centraal Insolventieregister): SOAP 1.1 with a WS-Security UsernameToken,
 * `searchUndertaking` (commercialRegisterID or name) answering a `publicatieLijst` of
 * `publicatieKenmerk`s or an `exceptie` (errorcode 1 no results, 3 too many), and `getCase`
 * answering `inspubWebserviceInsolvente`. Wrong credentials get the SOAP Fault. Error mode:
 * `fault` (server fault), `exceptie2` (technical error), `http_503` (HTML from the proxy).
 */
export async function startFakeCirServer(
  options: FakeCommonOptions & { cases?: FakeCirCase[]; username?: string; password?: string } = {},
): Promise<FakeHttpServer> {
  const cases = options.cases ?? CIR_FAKE_CASES
  const username = options.username ?? 'cir-user'
  const password = options.password ?? 'cir-password'
  const extracted = '2026-11-25T06:00:00+01:00'
  return startFakeHttpServer(
    'cir',
    (request: FakeRequest, behaviour: FakeBehaviour) => {
      if (behaviour.mode === 'error') {
        if (behaviour.error === 'http_503')
          return {
            status: 503,
            headers: { 'content-type': 'text/html' },
            body: '<html><body>Service Unavailable</body></html>',
          }
        if (behaviour.error === 'exceptie2')
          return xml(
            `<searchUndertakingResponse xmlns="${NS}"><searchUndertakingResult><publicatieLijst xmlns="${INSPUB}" extractiedatum="${extracted}"><exceptie errorcode="2">Technische fout in de afhandeling van de request</exceptie></publicatieLijst></searchUndertakingResult></searchUndertakingResponse>`,
          )
        return cirFault(
          'Server was unable to process request. ---> Object reference not set to an instance of an object.',
        )
      }
      if (request.method !== 'POST') return { status: 405, body: 'Method Not Allowed' }
      if (between(request.body, 'Username') !== username || between(request.body, 'Password') !== password)
        return cirFault(
          'Security requirements are not satisfied because the security header is not present or the username or password is incorrect.',
          'soap:Client',
        )
      const action = (request.headers.soapaction ?? '').toString().replace(/"/g, '')
      if (action === `${NS}/searchUndertaking`) {
        const kvk = between(request.body, 'commercialRegisterID')
        const name = between(request.body, 'name')?.toLowerCase()
        if (!kvk && !name)
          return xml(
            `<searchUndertakingResponse xmlns="${NS}"><searchUndertakingResult><publicatieLijst xmlns="${INSPUB}" extractiedatum="${extracted}"><exceptie errorcode="4">Input niet correct. Raadpleeg de handleiding.</exceptie></publicatieLijst></searchUndertakingResult></searchUndertakingResponse>`,
          )
        if (name && name.length < 3)
          return xml(
            `<searchUndertakingResponse xmlns="${NS}"><searchUndertakingResult><publicatieLijst xmlns="${INSPUB}" extractiedatum="${extracted}"><exceptie errorcode="3">Te veel resultaten gevonden. Beperk de zoekvraag</exceptie></publicatieLijst></searchUndertakingResult></searchUndertakingResponse>`,
          )
        const hits = cases.filter((c) =>
          kvk ? c.kvkNumber === kvk : c.name.toLowerCase().includes(name ?? ''),
        )
        const inner =
          hits.length === 0
            ? '<exceptie errorcode="1">Geen resultaten gevonden</exceptie>'
            : hits
                .flatMap((c) => c.publications.map((p) => `<publicatieKenmerk>${p.id}</publicatieKenmerk>`))
                .join('')
        return xml(
          `<searchUndertakingResponse xmlns="${NS}"><searchUndertakingResult><publicatieLijst xmlns="${INSPUB}" extractiedatum="${extracted}">${inner}</publicatieLijst></searchUndertakingResult></searchUndertakingResponse>`,
        )
      }
      if (action === `${NS}/getCase`) {
        const id = between(request.body, 'publicationNumber')
        const found = cases.find((c) => c.publications.some((p) => p.id === id))
        const inner = found
          ? `<insolvente><preHGKInsolventieNummer>${found.insolvencyNumber.replace(/\/\d{2}\//, '/')}</preHGKInsolventieNummer>` +
            `<insolventienummer>${found.insolvencyNumber}</insolventienummer><behandelendeInstantieCode>00</behandelendeInstantieCode>` +
            `<behandelendeInstantieNaam>${esc(found.court)}</behandelendeInstantieNaam><behandelendeVestigingCode>0000</behandelendeVestigingCode>` +
            '<behandelendeVestigingNaam>-</behandelendeVestigingNaam><isPreHGKGepubliceerd>false</isPreHGKGepubliceerd>' +
            `<persoon><rechtspersoonlijkheid>${found.legalPersonality}</rechtspersoonlijkheid><achternaam>${esc(found.name)}</achternaam>` +
            `${found.kvkNumber ? `<KvKNummer>${found.kvkNumber}</KvKNummer>` : ''}</persoon>` +
            '<adressen><geheimAdres>false</geheimAdres></adressen><publicatiegeschiedenis>' +
            found.publications
              .map(
                (p) =>
                  `<publicatie><publicatieDatum>${p.date}</publicatieDatum><publicatieKenmerk>${p.id}</publicatieKenmerk><publicatieOmschrijving>${esc(p.description)}</publicatieOmschrijving><publicatieSoortCode>${p.code}</publicatieSoortCode><publicerendeInstantieCode>00</publicerendeInstantieCode></publicatie>`,
              )
              .join('') +
            '<instroomLegacy>false</instroomLegacy></publicatiegeschiedenis></insolvente>'
          : '<exceptie errorcode="1">Geen resultaten gevonden</exceptie>'
        return xml(
          `<getCaseResponse xmlns="${NS}"><getCaseResult><inspubWebserviceInsolvente xmlns="${INSPUB}">${inner}</inspubWebserviceInsolvente></getCaseResult></getCaseResponse>`,
        )
      }
      return cirFault(
        `Server did not recognize the value of HTTP Header SOAPAction: ${action}.`,
        'soap:Client',
      )
    },
    options,
  )
}
