import type { FakeBehaviour, FakeCommonOptions } from './fake-behaviour.ts'
import { type FakeHttpServer, type FakeRequest, startFakeHttpServer } from './fake-http-server.ts'

/** An entity the fake yente knows, in FollowTheMoney form (as yente's index holds it). */
export interface FakeYenteEntity {
  id: string
  caption: string
  schema: string
  properties: Record<string, string[]>
  datasets: string[]
}

/** Hand-made entities: one PEP, one relative/close associate, one sanctioned company. */
export const YENTE_FAKE_ENTITIES: FakeYenteEntity[] = [
  {
    id: 'Q-FAKE-PEP-1',
    caption: 'Jan Voorbeeld',
    schema: 'Person',
    properties: {
      name: ['Jan Voorbeeld'],
      topics: ['role.pep'],
      country: ['nl'],
      nationality: ['nl'],
      birthDate: ['1961-04-12'],
      position: ['Member of the House of Representatives'],
    },
    datasets: ['wd_peps', 'nl_parliament'],
  },
  {
    id: 'NK-FAKE-RCA-1',
    caption: 'Anna Voorbeeld',
    schema: 'Person',
    properties: {
      name: ['Anna Voorbeeld'],
      topics: ['role.rca'],
      country: ['nl'],
      birthDate: ['1964-09-02'],
    },
    datasets: ['wd_peps'],
  },
  {
    id: 'NK-FAKE-SANCTIONED-1',
    caption: 'Oriental Oil Kish',
    schema: 'Company',
    properties: { name: ['Oriental Oil Kish'], topics: ['sanction'], country: ['ir'] },
    datasets: ['us_ofac_sdn'],
  },
]

const normal = (value: string) => value.toLowerCase().replace(/\s+/g, ' ').trim()

/** yente's score for the fake: 1.0 for the same normalised name, 0.6 sharing a word, else none. */
function scoreOf(query: string, entity: FakeYenteEntity): number {
  const q = normal(query)
  const names = entity.properties.name ?? [entity.caption]
  if (names.some((name) => normal(name) === q)) return 1
  const words = new Set(q.split(' '))
  if (
    names.some((name) =>
      normal(name)
        .split(' ')
        .some((word) => word.length > 3 && words.has(word)),
    )
  )
    return 0.6
  return 0
}

/**
 * A fake yente (OpenSanctions matching API): `POST /match/{dataset}` with `{queries}` answers
 * `{responses: {<name>: {status, results, total, query}}, matcher, limit}` like yente's
 * EntityMatchResponse, honouring `limit`, `threshold` and `topics`; unknown datasets get yente's
 * 404 `{"detail": ...}`; with `apiKey` set, a missing or wrong `Authorization: ApiKey` gets 403.
 * Error mode: `http_500`, `http_429`, `auth`.
 */
export async function startFakeYenteServer(
  options: FakeCommonOptions & { entities?: FakeYenteEntity[]; apiKey?: string; datasets?: string[] } = {},
): Promise<FakeHttpServer> {
  const entities = options.entities ?? YENTE_FAKE_ENTITIES
  const datasets = new Set(options.datasets ?? ['default', 'peps'])
  return startFakeHttpServer(
    'yente',
    (request: FakeRequest, behaviour: FakeBehaviour) => {
      if (behaviour.mode === 'error') {
        if (behaviour.error === 'http_429') return { status: 429, body: { detail: 'Rate limit exceeded' } }
        if (behaviour.error === 'auth') return { status: 403, body: { detail: 'Invalid API key' } }
        return { status: 500, body: { detail: 'Internal server error' } }
      }
      const route = /^\/match\/([^/]+)$/.exec(request.path)
      if (request.method !== 'POST' || !route) return { status: 404, body: { detail: 'Not Found' } }
      if (options.apiKey && request.headers.authorization !== `ApiKey ${options.apiKey}`)
        return { status: 403, body: { detail: 'Invalid API key' } }
      const dataset = decodeURIComponent(route[1] ?? '')
      if (!datasets.has(dataset)) return { status: 404, body: { detail: `No such dataset: ${dataset}` } }
      let body: { queries?: Record<string, { schema?: string; properties?: Record<string, unknown> }> }
      try {
        body = JSON.parse(request.body)
      } catch {
        return {
          status: 422,
          body: { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] },
        }
      }
      const queries = Object.entries(body.queries ?? {})
      if (queries.length === 0) return { status: 400, body: { detail: 'No queries provided.' } }
      const limit = Number(request.query.get('limit') ?? '5')
      const threshold = Number(request.query.get('threshold') ?? '0.7')
      const topics = request.query.getAll('topics')
      const responses: Record<string, unknown> = {}
      for (const [name, example] of queries) {
        const names = (example.properties?.name ?? []) as unknown[]
        const queryName = typeof names[0] === 'string' ? names[0] : ''
        const scored = entities
          .filter(
            (entity) =>
              topics.length === 0 || (entity.properties.topics ?? []).some((t) => topics.includes(t)),
          )
          .map((entity) => ({ entity, score: scoreOf(queryName, entity) }))
          .filter(({ score }) => score > 0.5)
          .sort((a, b) => b.score - a.score)
        responses[name] = {
          status: 200,
          results: scored.slice(0, limit).map(({ entity, score }) => ({
            ...entity,
            referents: [],
            target: true,
            first_seen: '2024-01-01T00:00:00',
            last_seen: '2026-11-01T00:00:00',
            last_change: '2026-10-01T00:00:00',
            score,
            features: { name_literal_match: score },
            match: score >= threshold,
          })),
          total: { value: scored.length, relation: 'eq' },
          query: { id: null, schema: example.schema ?? 'LegalEntity', properties: example.properties ?? {} },
        }
      }
      return {
        status: 200,
        headers: { 'x-batch-size': String(queries.length) },
        body: {
          responses,
          matcher: { name_literal_match: { description: 'Two names are identical', coefficient: 1 } },
          limit,
        },
      }
    },
    options,
  )
}
