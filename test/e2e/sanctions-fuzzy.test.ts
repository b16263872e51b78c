import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { usd } from '../../core/money.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import type { Service } from '../../server/compose.ts'
import {
  EU_LEGACY_FILE,
  rawEuLegacyEntities,
  rawUnRecords,
  readShared,
  sanctionsDataPath,
  UN_FILES,
} from '../support/sanctions/shared-data.ts'
import { createTestService, listen } from '../support/service.ts'

/**
 * The fuzzy mode of POST /v1/sanctions/screen and the sanctions_screen tool on the real UN
 * (2026-02-27) and legacy EU lists: the exact default is unchanged, fuzzy finds what exact
 * cannot (typos, given-name variants), explains each score, weighs evidence, costs the same.
 * Names and dates are read from the raw files with regular expressions, not the parsers.
 */

const ACCOUNT_PRICE = PRICES.sanctions_screen.account.fresh
const SPEC_FIELDS = [
  'countries',
  'entry_id',
  'entry_type',
  'list',
  'list_key',
  'listed_on',
  'match_score',
  'match_type',
  'matched_name',
  'programmes',
]

interface Match {
  list_key: string
  entry_id: string
  match_type: string
  match_score: number
  score_breakdown?: {
    listed_name: string
    name_score: number
    parts: Array<{ query: string; listed: string; similarity: number; method: string }>
    evidence: Array<{ field: string; outcome: string; effect: number }>
    threshold: number
  }
}
interface ScreenBody {
  possible_match: boolean
  matches: Match[]
  match?: string
  threshold?: number
  screened_at: string
  disclaimer: string
  detail?: Array<{ field: string; message: string }>
}

describe('fuzzy sanctions screening over REST and MCP on the real lists', () => {
  const unRecords = rawUnRecords(readShared(UN_FILES['2026-02-27']).toString('utf8'))
  const euRecords = rawEuLegacyEntities(readShared(EU_LEGACY_FILE).toString('utf8'))
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let liveKey: string
  let liveKeyId: string

  beforeAll(async () => {
    service = await createTestService('pglite', {
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      SANCTIONS_EU_SOURCE: sanctionsDataPath(EU_LEGACY_FILE),
      // Configured but unreadable (an upstream failure): screens answer with partial coverage.
      // Without any OFAC source the service is not configured for a name screen: a 503.
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/csv/no-such-folder/sdn.csv'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    })
    await service.runtime.deps.sanctionsLists?.idle()
    service.runtime.deps.companySources = {}
    server = await listen(service)
    const live = await service.runtime.keys.create({
      email: 'fuzzy@example.com',
      tier: 'pro',
      balance: usd('100'),
    })
    liveKey = live.apiKey
    liveKeyId = live.record.id
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await service?.close()
  })

  async function screen(body: unknown) {
    const response = await service.app.request('/v1/sanctions/screen', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': liveKey },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as ScreenBody }
  }
  const balance = async () => (await service.runtime.keys.get(liveKeyId))!.balanceMicros
  const strip = ({ screened_at: _at, ...rest }: ScreenBody) => rest

  /** A UN person whose first name is three or more words, each of 5+ letters in the longest. */
  const person = unRecords.find(
    (record) =>
      record.block.startsWith('<INDIVIDUAL>') &&
      record.names[0]!.split(' ').length >= 3 &&
      /<YEAR>\d{4}<\/YEAR>|<DATE>\d{4}-\d{2}-\d{2}<\/DATE>/.test(record.block),
  )!
  const typoOf = (name: string) => {
    const words = name.split(' ')
    const longest = words.reduce((a, b) => (b.length > a.length ? b : a))
    const at = Math.floor(longest.length / 2)
    const swapped = `${longest.slice(0, at)}${longest[at + 1]}${longest[at]}${longest.slice(at + 2)}`
    return words.map((word) => (word === longest ? swapped : word)).join(' ')
  }

  it('leaves the exact default unchanged: "match": "exact" answers what no match field answers, spec fields only', async () => {
    const names = [
      ...unRecords.slice(0, 10).map((record) => record.names[0]!),
      ...euRecords.slice(0, 10).map((record) => record.names[0]!),
      ...unRecords.slice(20, 25).map((record) => record.names[0]!.split(' ').reverse().join(' ')),
      'Zqxv Wholly Unlisted Trading Company',
      typoOf(person.names[0]!),
    ]
    for (const name of names) {
      const plain = await screen({ name })
      const exact = await screen({ name, match: 'exact' })
      expect(plain.status).toBe(200)
      expect(strip(exact.body)).toEqual(strip(plain.body))
      expect(Object.keys(plain.body)).not.toContain('match')
      expect(Object.keys(plain.body)).not.toContain('threshold')
      for (const match of plain.body.matches) {
        expect(Object.keys(match).sort()).toEqual(SPEC_FIELDS)
        expect(['name_exact', 'name_tokens']).toContain(match.match_type)
      }
    }
  })

  it('finds a typo the exact mode misses, at the same price, and explains the score', async () => {
    const query = typoOf(person.names[0]!)
    expect((await screen({ name: query })).body.matches.some((m) => m.entry_id === person.id)).toBe(false)
    const before = await balance()
    const { status, body } = await screen({ name: query, match: 'fuzzy' })
    expect(status).toBe(200)
    expect(await balance()).toBe(before - ACCOUNT_PRICE)
    expect(body).toMatchObject({ possible_match: true, match: 'fuzzy', threshold: 0.78 })
    const match = body.matches.find((m) => m.list_key === 'un' && m.entry_id === person.id)!
    expect(['name_fuzzy', 'name_phonetic']).toContain(match.match_type)
    expect(match.match_score).toBeGreaterThanOrEqual(0.78)
    expect(match.match_score).toBeLessThan(1)
    expect(match.score_breakdown).toMatchObject({
      listed_name: person.names[0],
      threshold: 0.78,
      evidence: [],
    })
    expect(match.score_breakdown!.parts.length).toBeGreaterThanOrEqual(2)
    for (const item of body.matches) expect(item.score_breakdown).toBeDefined()
    expect(body.disclaimer).toContain('not a determination')
  })

  it('finds a given-name variant (Muhammad for Mohammed) that the exact mode misses', async () => {
    const record = unRecords.find((r) => /^(?:MOHAMMED|Mohammed) \S+ \S+/.test(r.names[0]!))!
    const query = record.names[0]!.replace(/^(?:MOHAMMED|Mohammed)/, 'Muhammad')
    expect((await screen({ name: query })).body.matches.some((m) => m.entry_id === record.id)).toBe(false)
    const { body } = await screen({ name: query, match: 'fuzzy' })
    const match = body.matches.find((m) => m.list_key === 'un' && m.entry_id === record.id)!
    expect(match.match_type).toBe('name_phonetic')
    expect(match.score_breakdown!.parts).toContainEqual(
      expect.objectContaining({ query: 'muhammad', listed: 'mohammed', method: 'variant' }),
    )
  })

  it('raises or lowers the score with the date of birth the list publishes', async () => {
    const query = typoOf(person.names[0]!)
    const year = Number(/<YEAR>(\d{4})<\/YEAR>|<DATE>(\d{4})-/.exec(person.block)!.slice(1).find(Boolean))
    const find = (body: ScreenBody) =>
      body.matches.find((m) => m.list_key === 'un' && m.entry_id === person.id)
    const plain = find((await screen({ name: query, match: 'fuzzy' })).body)!
    const agreeing = find((await screen({ name: query, match: 'fuzzy', birth_date: String(year) })).body)!
    expect(agreeing.match_score).toBeCloseTo(Math.min(1, plain.match_score + 0.05), 3)
    expect(agreeing.score_breakdown!.evidence).toEqual([
      expect.objectContaining({ field: 'birth_date', outcome: 'match', effect: 0.05 }),
    ])
    const conflicting = (
      await screen({ name: query, match: 'fuzzy', birth_date: String(year + 30), threshold: 0 })
    ).body
    const lowered = find(conflicting)!
    expect(lowered.match_score).toBeCloseTo(plain.match_score - 0.15, 3)
    expect(lowered.score_breakdown!.evidence[0]).toMatchObject({ outcome: 'conflict', effect: -0.15 })
  })

  it('refuses evidence and thresholds without "match": "fuzzy", and malformed values (422 naming the field)', async () => {
    const fields = async (body: unknown) => {
      const { status, body: problem } = await screen(body)
      expect(status).toBe(422)
      return (problem.detail ?? []).map((item) => item.field)
    }
    expect(await fields({ name: 'Some Name', threshold: 0.9 })).toContain('threshold')
    expect(await fields({ name: 'Some Name', match: 'exact', birth_date: '1970' })).toContain('birth_date')
    expect(await fields({ name: 'Some Name', match: 'fuzzy', birth_date: '1970-13-01' })).toContain(
      'birth_date',
    )
    expect(await fields({ name: 'Some Name', match: 'fuzzy', threshold: 1.5 })).toContain('threshold')
    expect(await fields({ name: 'Some Name', match: 'fuzzy', nationality: 'nl' })).toContain('nationality')
    expect(await fields({ name: 'Some Name', match: 'loose' })).toContain('match')
  })

  it('gives the same fuzzy answer over MCP as over REST', async () => {
    const args = { name: typoOf(person.names[0]!), match: 'fuzzy', birth_date: '1900' }
    const client = new Client({ name: 'fuzzy-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'X-API-Key': liveKey } },
      }),
    )
    const result = await client.callTool({ name: 'sanctions_screen', arguments: args })
    await client.close()
    expect(result.isError).toBeFalsy()
    const tool = result.structuredContent as unknown as ScreenBody
    expect(strip(tool)).toEqual(strip((await screen(args)).body))
    expect(tool.match).toBe('fuzzy')
  })
})
