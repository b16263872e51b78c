import { XMLParser } from 'fast-xml-parser'
import type { CircuitBreaker } from './circuit-breaker.ts'
import type { FetchLike } from './http-json.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

/** The web service of the Dutch Centraal Insolventieregister (Rechtspraak). */
export const CIR_SERVICE_URL = 'https://webservice.rechtspraak.nl/cir.asmx'
/** Target namespace of CIR.asmx (its WSDL); also the prefix of every SOAPAction. */
export const CIR_NAMESPACE = 'http://www.rechtspraak.nl/namespaces/cir01'

/** One insolvency case of the register, as getCase describes it. */
export interface InsolvencyRecord {
  /** Case number, e.g. `F.13/24/123` (F bankruptcy, S suspension of payments, R debt restructuring). */
  insolvency_number: string
  type: 'bankruptcy' | 'suspension_of_payments' | 'debt_restructuring' | 'other'
  name: string | null
  kvk_number: string | null
  court: string | null
  /** `rechtspersoon` (legal person) or `natuurlijk persoon` (natural person). */
  legal_personality: string | null
  latest_publication: { date: string; description: string; code: string | null } | null
  publication_count: number
  /** The case ended (its latest publication reads as an ending). */
  ended: boolean
}

export interface InsolvencySearch {
  query_by: 'kvk_number' | 'name'
  /** Cases found (distinct case numbers among the publications the search returned). */
  match_count: number
  records: InsolvencyRecord[]
  /** More cases than were fetched, or the register said "too many results" (exceptie 3). */
  truncated: boolean
  /** `extractiedatum` of the publication list: the register's state the answer reflects. */
  extracted_at: string | null
}

export interface InsolvencyRegisterOptions extends SourceClientOptions {
  /** CIR.asmx endpoint. Default {@link CIR_SERVICE_URL}. */
  url?: string
  /** Credentials of the free CIR web service account (WS-Security UsernameToken). */
  username: string
  password: string
  /** Cases fetched with getCase per search. Default 5. */
  maxCases?: number
}

export interface InsolvencyRegisterClient {
  readonly source: 'insolvency_register'
  readonly breaker: CircuitBreaker
  /** searchUndertaking by KVK number (exact) or by name, then getCase per case found. */
  search(query: { kvkNumber?: string; name: string }): Promise<SourceResult<InsolvencySearch>>
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => ['publicatieKenmerk', 'publicatie', 'adres', 'cbv'].includes(name),
})

const xmlEscape = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** A SOAP 1.1 envelope with the WS-Security UsernameToken header CIR.asmx requires. */
export function cirEnvelope(body: string, username: string, password: string): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"' +
    ' xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">' +
    '<soap:Header><wsse:Security soap:mustUnderstand="1"><wsse:UsernameToken>' +
    `<wsse:Username>${xmlEscape(username)}</wsse:Username>` +
    '<wsse:Password Type="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText">' +
    `${xmlEscape(password)}</wsse:Password>` +
    '</wsse:UsernameToken></wsse:Security></soap:Header>' +
    `<soap:Body>${body}</soap:Body></soap:Envelope>`
  )
}

type Node = Record<string, unknown>
const asNode = (value: unknown): Node => (value && typeof value === 'object' ? (value as Node) : {})
const text = (value: unknown): string | null => {
  if (typeof value === 'string') return value.trim() || null
  if (typeof value === 'number') return String(value)
  const inner = asNode(value)['#text']
  return typeof inner === 'string' ? inner.trim() || null : null
}

/** Reads a SOAP answer: the Body's first child, or throws for a Fault / unreadable body. */
function soapBody(status: number, xml: string): Node {
  let doc: Node
  try {
    doc = asNode(parser.parse(xml))
  } catch {
    throw new UpstreamFailure('invalid_response', `HTTP ${status}: not XML`)
  }
  const body = asNode(asNode(doc.Envelope).Body)
  const fault = body.Fault
  if (fault) {
    const node = asNode(fault)
    const message =
      text(node.faultstring) ?? text(asNode(node.Reason).Text) ?? text(node.faultcode) ?? 'SOAP fault'
    if (/auth|security|password|user(name)?|credential|token/i.test(message))
      throw new UpstreamFailure('auth_failed', message)
    throw new UpstreamFailure('upstream_error', message)
  }
  if (status !== 200)
    throw new UpstreamFailure(status >= 500 ? 'upstream_error' : 'request_rejected', `HTTP ${status}`)
  return body
}

/** The `exceptie` codes of the register's schemas (RSpublicWS_InsolvencyResponseList01.xsd). */
function exceptieFailure(code: string | null, message: string | null): UpstreamFailure {
  const detail = `exceptie ${code ?? '?'}${message ? `: ${message}` : ''}`
  if (code === '4') return new UpstreamFailure('request_rejected', detail)
  return new UpstreamFailure('upstream_error', detail)
}

const CASE_TYPES: Record<string, InsolvencyRecord['type']> = {
  F: 'bankruptcy',
  S: 'suspension_of_payments',
  R: 'debt_restructuring',
}

const ENDED = /be[eë]indig|opgeheven|opheffing|vernietig|einde|homologatie|ingetrokken|intrekking/i

/**
 * The case part of a publicatieKenmerk (`[sys.]court.yy.number.T.code.seq.yy`): court, year,
 * number and type, shared by every publication of one case.
 */
export function caseKeyOf(publicationId: string): string {
  const parts = publicationId.split('.')
  const offset = /^\d{2}$/.test(parts[0] ?? '') ? 1 : 0
  return parts.slice(offset, offset + 4).join('.')
}

function readCase(node: Node): InsolvencyRecord | null {
  const insolvente = asNode(node.insolvente)
  const number = text(insolvente.insolventienummer)
  if (!number) return null
  const person = asNode(insolvente.persoon)
  const name = [person.voornaam, person.voorletters, person.voorvoegsel, person.achternaam]
    .map(text)
    .filter(Boolean)
    .join(' ')
  const publications = (asNode(insolvente.publicatiegeschiedenis).publicatie as unknown[] | undefined) ?? []
  const dated = publications
    .map(asNode)
    .map((pub) => ({
      date: text(pub.publicatieDatum) ?? '',
      description: text(pub.publicatieOmschrijving) ?? '',
      code: text(pub.publicatieSoortCode),
    }))
    .sort((a, b) => b.date.localeCompare(a.date))
  const latest = dated[0] ?? null
  return {
    insolvency_number: number,
    type: CASE_TYPES[number.charAt(0).toUpperCase()] ?? 'other',
    name: name || null,
    kvk_number: text(person.KvKNummer),
    court: text(insolvente.behandelendeInstantieNaam),
    legal_personality: text(person.rechtspersoonlijkheid),
    latest_publication: latest,
    publication_count: dated.length,
    ended: latest ? ENDED.test(latest.description) : false,
  }
}

async function post(
  fetchImpl: FetchLike,
  url: string,
  operation: string,
  envelope: string,
  signal: AbortSignal,
): Promise<{ status: number; xml: string }> {
  const response = await fetchImpl(url, {
    method: 'POST',
    headers: {
      'content-type': 'text/xml; charset=utf-8',
      soapaction: `"${CIR_NAMESPACE}/${operation}"`,
    },
    body: envelope,
    signal,
  })
  const xml = await response.text()
  if (xml.length > 2 * 1024 * 1024) throw new UpstreamFailure('invalid_response', 'body too large')
  return { status: response.status, xml }
}

/**
 * Client of the Centraal Insolventieregister web service (SOAP, CIR.asmx): `searchUndertaking`
 * by `commercialRegisterID` (exact, when a KVK number is known) or by `name`, then `getCase` for
 * each distinct case among the returned publication ids (at most `maxCases`). The register's
 * `exceptie` answers are read per its schema: 1 (no results) is an ok answer with nothing found,
 * 3 (too many results) is ok and truncated, 2 and 4 are failures; a SOAP Fault is a failure
 * (auth_failed when it is about the credentials).
 */
export function createInsolvencyRegisterClient(options: InsolvencyRegisterOptions): InsolvencyRegisterClient {
  const { clock, timeoutMs, breaker, fetch } = resolveCommon(options)
  const url = options.url ?? CIR_SERVICE_URL
  const maxCases = options.maxCases ?? 5
  const call = async (operation: string, body: string, signal: AbortSignal) => {
    const res = await post(
      fetch,
      url,
      operation,
      cirEnvelope(body, options.username, options.password),
      signal,
    )
    return soapBody(res.status, res.xml)
  }
  return {
    source: 'insolvency_register',
    breaker,
    search(query) {
      return runSourceCall({
        source: 'insolvency_register',
        clock,
        timeoutMs,
        breaker,
        call: async (signal): Promise<InsolvencySearch> => {
          const queryBy = query.kvkNumber ? 'kvk_number' : 'name'
          const criteria = query.kvkNumber
            ? `<commercialRegisterID>${xmlEscape(query.kvkNumber)}</commercialRegisterID>`
            : `<name>${xmlEscape(query.name)}</name>`
          const body = await call(
            'searchUndertaking',
            `<searchUndertaking xmlns="${CIR_NAMESPACE}">${criteria}</searchUndertaking>`,
            signal,
          )
          const list = asNode(
            asNode(asNode(body.searchUndertakingResponse).searchUndertakingResult).publicatieLijst,
          )
          const extractedAt = text(list['@extractiedatum'])
          const exceptie = list.exceptie
          if (exceptie !== undefined) {
            const code = text(asNode(exceptie)['@errorcode'])
            const empty = (truncated: boolean): InsolvencySearch => ({
              query_by: queryBy,
              match_count: 0,
              records: [],
              truncated,
              extracted_at: extractedAt,
            })
            if (code === '1') return empty(false)
            if (code === '3') return empty(true)
            throw exceptieFailure(code, text(exceptie))
          }
          const ids = ((list.publicatieKenmerk as unknown[] | undefined) ?? [])
            .map(text)
            .filter((id): id is string => id !== null)
          const cases = new Map<string, string>()
          for (const id of ids) if (!cases.has(caseKeyOf(id))) cases.set(caseKeyOf(id), id)
          const wanted = [...cases.values()].slice(0, maxCases)
          const records = await Promise.all(
            wanted.map(async (publicationNumber) => {
              const answer = await call(
                'getCase',
                `<getCase xmlns="${CIR_NAMESPACE}"><publicationNumber>${xmlEscape(publicationNumber)}</publicationNumber></getCase>`,
                signal,
              )
              const result = asNode(asNode(answer.getCaseResponse).getCaseResult)
              const insolvent = asNode(result.inspubWebserviceInsolvente)
              if (insolvent.exceptie !== undefined) {
                const code = text(asNode(insolvent.exceptie)['@errorcode'])
                if (code === '1') return null
                throw exceptieFailure(code, text(insolvent.exceptie))
              }
              return readCase(insolvent)
            }),
          )
          const found = records.filter((record): record is InsolvencyRecord => record !== null)
          return {
            query_by: queryBy,
            match_count: cases.size,
            records: found,
            truncated: cases.size > wanted.length,
            extracted_at: extractedAt,
          }
        },
      })
    },
  }
}
