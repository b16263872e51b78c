import { z } from 'zod'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { failureForStatus, joinUrl, requestJson } from './http-json.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

/** One scored candidate of a yente `/match/{dataset}` answer, reduced to what a screen reports. */
export interface PepMatch {
  /** OpenSanctions entity id (e.g. `Q7747` or `NK-...`). */
  id: string
  caption: string
  /** FollowTheMoney schema of the candidate: Person, Company, Organization, LegalEntity ... */
  schema_type: string
  /** FollowTheMoney topics, e.g. `role.pep`, `role.rca`, `sanction`. */
  topics: string[]
  datasets: string[]
  /** yente's matching score, 0-1. */
  score: number
  countries: string[]
  birth_date: string | null
  /** yente's own verdict: score at or above the threshold. */
  match: boolean
}

export interface PepScreen {
  dataset: string
  /** Candidates yente scored (its `total.value`). */
  total: number
  /** The candidates it returned (at most `limit`), best first. */
  results: PepMatch[]
  limit: number
}

export interface PepQuery {
  name: string
  /** ISO 3166-1 alpha-2 (sent lowercase as FtM `country`). */
  country?: string
  /** FtM schema of the example: LegalEntity matches people and companies alike. */
  schema?: 'LegalEntity' | 'Person' | 'Company' | 'Organization'
}

export interface YenteClientOptions extends SourceClientOptions {
  /** yente base URL: `https://api.opensanctions.org` (hosted) or a self-hosted yente. */
  baseUrl: string
  /** Hosted API key, sent as `Authorization: ApiKey <key>`; self-hosted yente needs none. */
  apiKey?: string
  /** Dataset or collection to match against. Default `default`. */
  dataset?: string
  /** Only candidates with any of these topics (yente `topics` filter, OR). Default role.pep, role.rca. */
  topics?: readonly string[]
  /** Candidates returned per query (yente `limit`). Default 10. */
  limit?: number
}

export interface YenteClient {
  readonly source: 'opensanctions'
  readonly breaker: CircuitBreaker
  /** `POST {base}/match/{dataset}` with one FollowTheMoney example. */
  match(query: PepQuery): Promise<SourceResult<PepScreen>>
}

const Values = z.array(z.unknown()).optional()

/** yente's ScoredEntityResponse (yente/data/common.py), the fields this client reads. */
const ScoredEntity = z.object({
  id: z.string(),
  caption: z.string(),
  schema: z.string(),
  properties: z.record(z.string(), Values).default({}),
  datasets: z.array(z.string()).default([]),
  score: z.number(),
  match: z.boolean().default(false),
})

/** yente's EntityMatchResponse: `responses` keyed by the query names the client chose. */
const MatchResponse = z.object({
  responses: z.record(
    z.string(),
    z.object({
      status: z.number().default(200),
      results: z.array(ScoredEntity),
      total: z.object({ value: z.number(), relation: z.string().optional() }).optional(),
    }),
  ),
  limit: z.number().optional(),
})

const strings = (values: unknown[] | undefined): string[] =>
  (values ?? []).filter((value): value is string => typeof value === 'string')

/** The query name this client uses in `queries` (yente echoes it in `responses`). */
const QUERY = 'entity'

/**
 * Client of yente's matching API (OpenSanctions, self-hosted or hosted): one query-by-example
 * with the entity's name and country, filtered to PEP and relative/close-associate topics.
 * yente errors (`{"detail": ...}` with 4xx/5xx) are `unavailable` with the detail; a 404 means the
 * configured dataset does not exist (`request_rejected`).
 */
export function createYenteClient(options: YenteClientOptions): YenteClient {
  const { clock, timeoutMs, breaker, fetch } = resolveCommon(options)
  const dataset = options.dataset ?? 'default'
  const limit = options.limit ?? 10
  const topics = options.topics ?? ['role.pep', 'role.rca']
  return {
    source: 'opensanctions',
    breaker,
    match(query) {
      return runSourceCall({
        source: 'opensanctions',
        clock,
        timeoutMs,
        breaker,
        call: async (signal) => {
          const url = new URL(joinUrl(options.baseUrl, `/match/${encodeURIComponent(dataset)}`))
          url.searchParams.set('limit', String(limit))
          for (const topic of topics) url.searchParams.append('topics', topic)
          const properties: Record<string, string[]> = { name: [query.name] }
          if (query.country) properties.country = [query.country.toLowerCase()]
          const headers: Record<string, string> = {
            'content-type': 'application/json',
            accept: 'application/json',
          }
          if (options.apiKey) headers.authorization = `ApiKey ${options.apiKey}`
          const res = await requestJson(fetch, url, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              queries: { [QUERY]: { schema: query.schema ?? 'LegalEntity', properties } },
            }),
            signal,
          })
          if (res.status !== 200) {
            const detail = (res.json as { detail?: unknown } | undefined)?.detail
            throw failureForStatus(res.status, typeof detail === 'string' ? detail : undefined)
          }
          const parsed = MatchResponse.safeParse(res.json)
          const answer = parsed.success ? parsed.data.responses[QUERY] : undefined
          if (!answer) throw new UpstreamFailure('invalid_response', 'no match response for the query')
          const results = answer.results.map(
            (entity): PepMatch => ({
              id: entity.id,
              caption: entity.caption,
              schema_type: entity.schema,
              topics: strings(entity.properties.topics),
              datasets: entity.datasets,
              score: entity.score,
              countries: [
                ...new Set([
                  ...strings(entity.properties.country),
                  ...strings(entity.properties.nationality),
                  ...strings(entity.properties.citizenship),
                  ...strings(entity.properties.jurisdiction),
                ]),
              ],
              birth_date: strings(entity.properties.birthDate)[0] ?? null,
              match: entity.match,
            }),
          )
          return {
            dataset,
            total: answer.total?.value ?? results.length,
            results,
            limit: parsed.data?.limit ?? limit,
          }
        },
      })
    },
  }
}
