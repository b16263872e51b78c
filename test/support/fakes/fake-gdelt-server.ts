import type { FakeBehaviour, FakeCommonOptions } from './fake-behaviour.ts'
import { type FakeHttpServer, type FakeRequest, startFakeHttpServer } from './fake-http-server.ts'

/** An article the fake GDELT knows, with the tone bin its tone chart puts it in. */
export interface FakeGdeltArticle {
  url: string
  title: string
  seendate: string
  domain: string
  language: string
  sourcecountry: string
  tone: number
}

export const GDELT_FAKE_ARTICLES: FakeGdeltArticle[] = [
  {
    url: 'https://news.example.nl/2026/11/test-bv-donald-fraud-investigation',
    title: 'Test BV Donald under fraud investigation',
    seendate: '20261120T081500Z',
    domain: 'news.example.nl',
    language: 'Dutch',
    sourcecountry: 'Netherlands',
    tone: -6,
  },
  {
    url: 'https://finance.example.com/test-bv-donald-bankruptcy',
    title: 'Creditors meet after Test BV Donald bankruptcy',
    seendate: '20261101T120000Z',
    domain: 'finance.example.com',
    language: 'English',
    sourcecountry: 'United Kingdom',
    tone: -3,
  },
]

/**
 * A fake GDELT DOC 2.0 API: `GET /api/v2/doc/doc?query=...&mode=artlist|tonechart&format=json`.
 * Articles whose title contains the query's quoted phrase match; no match is `{}` (as GDELT sends
 * for an empty result). A query without a phrase gets GDELT's plain-text complaint. Error mode:
 * `rate_limit` (GDELT's 429 text), `http_500`.
 */
export async function startFakeGdeltServer(
  options: FakeCommonOptions & { articles?: FakeGdeltArticle[] } = {},
): Promise<FakeHttpServer> {
  const articles = options.articles ?? GDELT_FAKE_ARTICLES
  return startFakeHttpServer(
    'gdelt',
    (request: FakeRequest, behaviour: FakeBehaviour) => {
      if (behaviour.mode === 'error') {
        if (behaviour.error === 'rate_limit')
          return {
            status: 429,
            body: 'Please limit requests to one every 5 seconds or contact kalev.leetaru5@gmail.com for larger queries.',
          }
        return {
          status: 500,
          headers: { 'content-type': 'text/html' },
          body: '<html><body>Internal Server Error</body></html>',
        }
      }
      if (request.path !== '/api/v2/doc/doc')
        return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html>Not Found</html>' }
      const query = request.query.get('query') ?? ''
      const phrase = /"([^"]+)"/.exec(query)?.[1]?.toLowerCase()
      if (!phrase)
        return {
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: 'The specified phrase is too short.',
        }
      const hits = articles.filter((a) => a.title.toLowerCase().includes(phrase))
      const max = Number(request.query.get('maxrecords') ?? '75')
      if (request.query.get('mode') === 'tonechart') {
        const bins = new Map<number, FakeGdeltArticle[]>()
        for (const a of hits) bins.set(a.tone, [...(bins.get(a.tone) ?? []), a])
        return {
          status: 200,
          body: {
            tonechart: [...bins.entries()].map(([bin, list]) => ({
              bin,
              count: list.length,
              toparts: list.map((a) => ({ url: a.url, title: a.title })),
            })),
          },
        }
      }
      if (hits.length === 0) return { status: 200, body: {} }
      return {
        status: 200,
        body: {
          articles: hits
            .slice(0, max)
            .map(({ tone: _tone, ...a }) => ({ ...a, url_mobile: '', socialimage: '' })),
        },
      }
    },
    options,
  )
}
