import { z } from 'zod'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { failureForStatus, requestJson } from './http-json.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

export const GDELT_DOC_API_URL = 'https://api.gdeltproject.org/api/v2/doc/doc'

/** Words that make a mention adverse (GDELT boolean OR group). */
export const ADVERSE_TERMS = [
  'fraud',
  'corruption',
  'bribery',
  '"money laundering"',
  'sanctions',
  'bankruptcy',
  'lawsuit',
  'investigation',
  'scandal',
] as const

export interface MediaArticle {
  title: string
  url: string
  /** The publishing site's domain. */
  source: string
  source_country: string | null
  language: string | null
  /** When GDELT saw it (ISO timestamp from `seendate`). */
  date: string | null
  /** GDELT tone bin of the article (tonechart; negative is adverse), null when GDELT gave none. */
  tone: number | null
}

export interface MediaSearch {
  /** The GDELT query sent (entity name in quotes AND the adverse terms). */
  query: string
  timespan: string
  articles: MediaArticle[]
  /** GDELT returned as many articles as asked for: there may be more. */
  truncated: boolean
}

export interface GdeltClientOptions extends SourceClientOptions {
  /** DOC 2.0 endpoint. Default {@link GDELT_DOC_API_URL}. */
  url?: string
  /** Articles asked for (`maxrecords`, 1-250). Default 10. */
  maxRecords?: number
  /** Look-back window (`timespan`, e.g. `3m`, `30d`). Default `3m` (the DOC API's full range). */
  timespan?: string
}

export interface GdeltClient {
  readonly source: 'gdelt'
  readonly breaker: CircuitBreaker
  /** `mode=artlist` (articles) and `mode=tonechart` (their tone) for the name with adverse terms. */
  adverseMedia(name: string): Promise<SourceResult<MediaSearch>>
}

const ArtList = z.object({
  articles: z
    .array(
      z.object({
        url: z.string(),
        title: z.string().default(''),
        seendate: z.string().optional(),
        domain: z.string().optional(),
        language: z.string().optional(),
        sourcecountry: z.string().optional(),
      }),
    )
    .default([]),
})

const ToneChart = z.object({
  tonechart: z
    .array(
      z.object({
        bin: z.number(),
        count: z.number().optional(),
        toparts: z.array(z.object({ url: z.string(), title: z.string().optional() })).default([]),
      }),
    )
    .default([]),
})

/** `20240131T120000Z` -> `2024-01-31T12:00:00Z`. */
export function gdeltDate(value: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '')
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : null
}

/** The GDELT query for adverse mentions of a name: the exact phrase AND any adverse term. */
export function adverseQuery(name: string): string {
  const phrase = name.replace(/["()]/g, ' ').replace(/\s+/g, ' ').trim()
  return `"${phrase}" (${ADVERSE_TERMS.join(' OR ')})`
}

/**
 * Client of the GDELT DOC 2.0 API (free, no key): recent worldwide news mentioning the entity
 * together with adverse words. GDELT answers errors (a query it cannot run, "limit requests to one
 * every 5 seconds") as plain text or HTML instead of JSON: those are `unavailable` with the text.
 * The tone chart is asked in parallel; when it fails the articles still count, with tone null.
 */
export function createGdeltClient(options: GdeltClientOptions = {}): GdeltClient {
  const { clock, timeoutMs, breaker, fetch } = resolveCommon(options)
  const base = options.url ?? GDELT_DOC_API_URL
  const maxRecords = Math.min(250, Math.max(1, options.maxRecords ?? 10))
  const timespan = options.timespan ?? '3m'
  const urlFor = (query: string, mode: string) => {
    const url = new URL(base)
    url.searchParams.set('query', query)
    url.searchParams.set('mode', mode)
    url.searchParams.set('format', 'json')
    url.searchParams.set('timespan', timespan)
    if (mode === 'artlist') {
      url.searchParams.set('maxrecords', String(maxRecords))
      url.searchParams.set('sort', 'datedesc')
    }
    return url
  }
  return {
    source: 'gdelt',
    breaker,
    adverseMedia(name) {
      return runSourceCall({
        source: 'gdelt',
        clock,
        timeoutMs,
        breaker,
        call: async (signal) => {
          const query = adverseQuery(name)
          const get = (mode: string) =>
            requestJson(fetch, urlFor(query, mode), {
              method: 'GET',
              headers: { accept: 'application/json' },
              signal,
            })
          const [list, tone] = await Promise.all([get('artlist'), get('tonechart').catch(() => undefined)])
          if (list.status !== 200) throw failureForStatus(list.status, list.text.trim().slice(0, 200))
          if (list.json === undefined) {
            const message = list.text
              .replace(/<[^>]+>/g, ' ')
              .replace(/\s+/g, ' ')
              .trim()
            if (message === '') return { query, timespan, articles: [], truncated: false }
            if (/limit requests/i.test(message))
              throw new UpstreamFailure('rate_limited', message.slice(0, 200))
            throw new UpstreamFailure('request_rejected', message.slice(0, 200))
          }
          const parsed = ArtList.safeParse(list.json)
          if (!parsed.success) throw new UpstreamFailure('invalid_response', 'artlist without articles')
          const tones = new Map<string, number>()
          const chart = tone?.status === 200 ? ToneChart.safeParse(tone.json) : undefined
          if (chart?.success)
            for (const bin of chart.data.tonechart)
              for (const part of bin.toparts) tones.set(part.url, bin.bin)
          const articles = parsed.data.articles.slice(0, maxRecords).map(
            (article): MediaArticle => ({
              title: article.title,
              url: article.url,
              source: article.domain ?? new URL(article.url).hostname,
              source_country: article.sourcecountry || null,
              language: article.language || null,
              date: gdeltDate(article.seendate),
              tone: tones.get(article.url) ?? null,
            }),
          )
          return { query, timespan, articles, truncated: parsed.data.articles.length >= maxRecords }
        },
      })
    },
  }
}
