import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeHttpServer } from '../../test/support/fakes/index.ts'
import {
  startFakeCirServer,
  startFakeGdeltServer,
  startFakeOpenapiRiskServer,
  startFakeYenteServer,
} from '../../test/support/fakes/index.ts'
import { REFUSED_URL } from '../../test/support/fakes/refused-address.ts'
import { createOpenapiRiskProvider } from './credit-report.ts'
import { adverseQuery, createGdeltClient, gdeltDate } from './gdelt.ts'
import { caseKeyOf, createInsolvencyRegisterClient } from './insolvency-register.ts'
import { createYenteClient } from './yente.ts'

const breaker = { failureThreshold: 100 }

describe('yente /match/{dataset} adapter', () => {
  let fake: FakeHttpServer
  beforeAll(async () => {
    fake = await startFakeYenteServer({ apiKey: 'yente-key' })
  })
  afterAll(() => fake.close())
  const client = (overrides: Record<string, unknown> = {}) =>
    createYenteClient({ baseUrl: fake.url, apiKey: 'yente-key', breaker, ...overrides })

  it('sends one LegalEntity example with the PEP/RCA topic filter and reads the scored results', async () => {
    const result = await client().match({ name: 'Jan Voorbeeld', country: 'NL' })
    expect(result.status).toBe('ok')
    if (result.status !== 'ok') return
    const sent = fake.requests.at(-1)!
    expect(sent.path).toBe('/match/default')
    expect(sent.query.getAll('topics')).toEqual(['role.pep', 'role.rca'])
    expect(sent.headers.authorization).toBe('ApiKey yente-key')
    expect(JSON.parse(sent.body)).toEqual({
      queries: {
        entity: { schema: 'LegalEntity', properties: { name: ['Jan Voorbeeld'], country: ['nl'] } },
      },
    })
    expect(result.data.results[0]).toMatchObject({
      caption: 'Jan Voorbeeld',
      schema_type: 'Person',
      topics: ['role.pep'],
      datasets: ['wd_peps', 'nl_parliament'],
      score: 1,
      countries: ['nl'],
      birth_date: '1961-04-12',
      match: true,
    })
    // The relative shares a word with the name: scored below the threshold, not a match.
    expect(result.data.results.find((r) => r.caption === 'Anna Voorbeeld')?.match).toBe(false)
  })

  it("reports a wrong key as auth_failed and an unknown dataset as request_rejected with yente's detail", async () => {
    const denied = await client({ apiKey: 'wrong' }).match({ name: 'x' })
    expect(denied).toMatchObject({ status: 'unavailable', reason: 'auth_failed' })
    const unknown = await client({ dataset: 'nope' }).match({ name: 'x' })
    expect(unknown).toMatchObject({
      status: 'unavailable',
      reason: 'request_rejected',
      detail: expect.stringContaining('No such dataset'),
    })
  })

  it('a refused connection is unavailable, never a clean screen', async () => {
    expect(await client({ baseUrl: REFUSED_URL }).match({ name: 'Jan Voorbeeld' })).toMatchObject({
      status: 'unavailable',
      reason: 'connection_refused',
    })
  })
})

describe('Centraal Insolventieregister SOAP adapter', () => {
  let fake: FakeHttpServer
  beforeAll(async () => {
    fake = await startFakeCirServer()
  })
  afterAll(() => fake.close())
  const client = (password = 'cir-password') =>
    createInsolvencyRegisterClient({ url: fake.url, username: 'cir-user', password, breaker })

  it('searchUndertaking by KVK number, then getCase once per case, with the WS-Security header', async () => {
    const before = fake.requests.length
    const result = await client().search({ kvkNumber: '68750110', name: 'Test BV Donald' })
    expect(result.status).toBe('ok')
    if (result.status !== 'ok') return
    const calls = fake.requests.slice(before)
    expect(calls.map((r) => r.headers.soapaction)).toEqual([
      '"http://www.rechtspraak.nl/namespaces/cir01/searchUndertaking"',
      '"http://www.rechtspraak.nl/namespaces/cir01/getCase"',
    ])
    expect(calls[0]!.body).toContain('<commercialRegisterID>68750110</commercialRegisterID>')
    expect(calls[0]!.body).toContain('<wsse:Username>cir-user</wsse:Username>')
    expect(result.data).toMatchObject({ query_by: 'kvk_number', match_count: 1, truncated: false })
    expect(result.data.records[0]).toMatchObject({
      insolvency_number: 'F.13/25/412',
      type: 'bankruptcy',
      kvk_number: '68750110',
      court: 'Rechtbank Noord-Nederland',
      legal_personality: 'rechtspersoon',
      publication_count: 2,
      latest_publication: { date: '2025-04-10', code: '1301' },
      ended: false,
    })
  })

  it('by name; an ended case reads as ended; exceptie 1 is an answer with nothing found', async () => {
    const found = await client().search({ name: 'Voorbeeld Handel' })
    expect(found).toMatchObject({ status: 'ok', data: { query_by: 'name', match_count: 1 } })
    if (found.status === 'ok')
      expect(found.data.records[0]).toMatchObject({ type: 'suspension_of_payments', ended: true })
    const none = await client().search({ name: 'Nobody Here BV' })
    expect(none).toMatchObject({ status: 'ok', data: { match_count: 0, records: [], truncated: false } })
    const tooMany = await client().search({ name: 'ab' })
    expect(tooMany).toMatchObject({ status: 'ok', data: { match_count: 0, truncated: true } })
  })

  it('the SOAP Fault for bad credentials is auth_failed; a server fault and exceptie 2 are upstream_error', async () => {
    expect(await client('wrong').search({ name: 'x' })).toMatchObject({
      status: 'unavailable',
      reason: 'auth_failed',
    })
    fake.behave({ mode: 'error', error: 'fault' })
    expect(await client().search({ name: 'x' })).toMatchObject({
      status: 'unavailable',
      reason: 'upstream_error',
    })
    fake.behave({ mode: 'error', error: 'exceptie2' })
    expect(await client().search({ name: 'x' })).toMatchObject({
      status: 'unavailable',
      reason: 'upstream_error',
      detail: expect.stringContaining('exceptie 2'),
    })
    fake.behave({ mode: 'normal' })
  })

  it('groups publication ids by case', () => {
    expect(caseKeyOf('13.lee.25.412.F.1300.1.25')).toBe('lee.25.412.F')
    expect(caseKeyOf('ams.24.7.S.3300.1.24')).toBe('ams.24.7.S')
  })
})

describe('GDELT DOC 2.0 adapter', () => {
  let fake: FakeHttpServer
  beforeAll(async () => {
    fake = await startFakeGdeltServer()
  })
  afterAll(() => fake.close())
  const client = () => createGdeltClient({ url: `${fake.url}/api/v2/doc/doc`, maxRecords: 5, breaker })

  it('asks artlist and tonechart for the quoted name with adverse terms and joins the tone by URL', async () => {
    const result = await client().adverseMedia('Test BV Donald')
    expect(result.status).toBe('ok')
    if (result.status !== 'ok') return
    const modes = fake.requests
      .slice(-2)
      .map((r) => r.query.get('mode'))
      .sort()
    expect(modes).toEqual(['artlist', 'tonechart'])
    expect(fake.requests.at(-1)!.query.get('format')).toBe('json')
    expect(result.data.query).toBe(adverseQuery('Test BV Donald'))
    expect(result.data.articles[0]).toEqual({
      title: 'Test BV Donald under fraud investigation',
      url: 'https://news.example.nl/2026/11/test-bv-donald-fraud-investigation',
      source: 'news.example.nl',
      source_country: 'Netherlands',
      language: 'Dutch',
      date: '2026-11-20T08:15:00Z',
      tone: -6,
    })
  })

  it('an empty result ({}) is an answer with no articles; the 429 text is rate_limited', async () => {
    expect(await client().adverseMedia('Unknown Company')).toMatchObject({
      status: 'ok',
      data: { articles: [], truncated: false },
    })
    fake.behave({ mode: 'error', error: 'rate_limit' })
    expect(await client().adverseMedia('Test BV Donald')).toMatchObject({
      status: 'unavailable',
      reason: 'rate_limited',
    })
    fake.behave({ mode: 'normal' })
  })

  it('reads GDELT dates', () => {
    expect(gdeltDate('20261120T081500Z')).toBe('2026-11-20T08:15:00Z')
    expect(gdeltDate('bad')).toBeNull()
  })
})

describe('openapi.com Risk credit adapter', () => {
  let fake: FakeHttpServer
  beforeAll(async () => {
    fake = await startFakeOpenapiRiskServer()
  })
  afterAll(() => fake.close())
  const provider = (token = 'openapi-test-token') =>
    createOpenapiRiskProvider({ baseUrl: fake.url, token, breaker })

  it('reads the score of a known company and says not found for an unknown one', async () => {
    const known = await provider().report('12345678903')
    expect(fake.requests.at(-1)!.path).toBe('/IT-creditscore-start/12345678903')
    expect(known).toMatchObject({
      status: 'ok',
      data: {
        found: true,
        company_name: 'ESEMPIO SRL',
        score: 72,
        rating: 'A2',
        credit_limit_eur: 50000,
        activity_status: 'ATTIVA',
      },
    })
    expect(await provider().report('00000000000')).toMatchObject({ status: 'ok', data: { found: false } })
  })

  it('a bad token is auth_failed, exhausted credit upstream_error', async () => {
    expect(await provider('bad').report('12345678903')).toMatchObject({
      status: 'unavailable',
      reason: 'auth_failed',
    })
    fake.behave({ mode: 'error', error: 'no_credit' })
    expect(await provider().report('12345678903')).toMatchObject({
      status: 'unavailable',
      reason: 'upstream_error',
    })
    fake.behave({ mode: 'normal' })
  })
})
