import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { usd } from '../../core/money.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import { nameKeys } from '../../core/sanctions/name-normaliser.ts'
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

const ACCOUNT_PRICE = PRICES.sanctions_screen.account.fresh
const X402_PRICE = PRICES.sanctions_screen.x402.fresh
const MATCH_FIELDS = [
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
  list: string
  list_key: string
  entry_id: string
  countries: string[]
  match_type: string
  match_score: number
}
interface ScreenBody {
  possible_match: boolean
  matches: Match[]
  matches_truncated: boolean
  lists_checked: string[]
  list_dates: Record<string, string>
  list_note: string
  result: string
  coverage: {
    status: string
    lists_checked: { list_key: string; publication_date: string | null; age_days: number; stale: boolean }[]
    lists_not_checked: { list_key: string; reason: string; detail: string }[]
  }
  disclaimer: string
  screened_at: string
  detail?: unknown
  errorCode?: string
  status?: number
}

describe('POST /v1/sanctions/screen and the sanctions_screen tool', () => {
  const unRecords = rawUnRecords(readShared(UN_FILES['2026-02-27']).toString('utf8'))
  const euRecords = rawEuLegacyEntities(readShared(EU_LEGACY_FILE).toString('utf8'))
  let service: Service
  let empty: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let liveKey: string
  let liveKeyId: string
  let sandboxKey: string

  beforeAll(async () => {
    service = await createTestService('pglite', {
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      SANCTIONS_EU_SOURCE: sanctionsDataPath(EU_LEGACY_FILE),
      // Configured but unreadable: its first read fails (an upstream failure, not the service's
      // state), so screens answer with partial coverage instead of a 503.
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/csv/no-such-folder/sdn.csv'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
      // x402 on, so an unpaid anonymous call gets the challenge (the facilitator is never reached).
      X402_PAY_TO: `0x${'11'.repeat(20)}`,
      X402_FACILITATOR_URL: 'http://127.0.0.1:9',
    })
    await service.runtime.deps.sanctionsLists?.idle()
    service.runtime.deps.companySources = {}
    empty = await createTestService('pglite')
    empty.runtime.deps.companySources = {}
    server = await listen(service)
    const live = await service.runtime.keys.create({
      email: 'screen@example.com',
      tier: 'pro',
      balance: usd('10'),
    })
    liveKey = live.apiKey
    liveKeyId = live.record.id
    sandboxKey = (await service.runtime.keys.create({ email: 'sandbox@example.com', tier: 'sandbox' })).apiKey
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
    await empty?.close()
  })

  async function screen(body: unknown, apiKey: string | null = liveKey, target: Service = service) {
    const response = await target.app.request('/v1/sanctions/screen', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
      body: JSON.stringify(body),
    })
    return { status: response.status, headers: response.headers, body: (await response.json()) as ScreenBody }
  }

  const balance = async () => (await service.runtime.keys.get(liveKeyId))!.balanceMicros

  it('finds a listed name with the spec fields and debits the live key the account price', async () => {
    const record = unRecords[100]!
    const before = await balance()
    const { status, headers, body } = await screen({ name: record.names[0] })
    expect(status).toBe(200)
    expect(headers.get('x-charged-amount')).toBe(ACCOUNT_PRICE.toString())
    expect(await balance()).toBe(before - ACCOUNT_PRICE)
    expect(body.possible_match).toBe(true)
    const match = body.matches.find((m) => m.list_key === 'un' && m.entry_id === record.id)
    expect(match).toMatchObject({
      list: 'UN Security Council Consolidated List',
      match_type: 'name_exact',
      match_score: 1,
    })
    for (const item of body.matches) expect(Object.keys(item).sort()).toEqual(MATCH_FIELDS)
    expect(body.matches_truncated).toBe(false)
    expect(body.lists_checked).toEqual([
      'EU Consolidated Financial Sanctions List',
      'UN Security Council Consolidated List',
    ])
    expect(body.list_dates).toEqual({
      'EU Consolidated Financial Sanctions List': '2016-02-11',
      'UN Security Council Consolidated List': '2026-02-27',
    })
    expect(body.list_note).not.toContain('refreshed daily')
    expect(body.list_note).toContain(
      'UN Security Council Consolidated List as of 2026-02-27 (publication date,',
    )
    expect(body.list_note).toContain('Not loaded, so not checked: OFAC SDN (load_failed)')
    expect(body.result).toBe('possible_match')
    expect(body.coverage).toMatchObject({
      status: 'partial',
      lists_checked: [
        { list_key: 'eu', publication_date: '2016-02-11', stale: true },
        { list_key: 'un', publication_date: '2026-02-27' },
      ],
      lists_not_checked: [{ list_key: 'ofac_sdn', reason: 'load_failed' }],
    })
    // The EU copy is ten years old: far past its 30-day threshold.
    expect(body.coverage.lists_checked[0]!.age_days).toBeGreaterThan(3000)
    expect(body.disclaimer).toContain('not a determination')
    expect(Number.isNaN(Date.parse(body.screened_at))).toBe(false)
  })

  it('matches the words of a listed name in another order as name_tokens', async () => {
    const record = unRecords.find((r) => r.names[0]!.split(' ').length === 3)!
    const reversed = record.names[0]!.split(' ').reverse().join(' ')
    const { body } = await screen({ name: reversed })
    expect(body.matches.find((m) => m.entry_id === record.id)).toMatchObject({ match_type: 'name_tokens' })
  })

  it('answers a name on no list with possible_match false, never clear while a list is missing, and still charges it', async () => {
    const before = await balance()
    const { status, body } = await screen({ name: 'Zqxv Wholly Unlisted Trading Company' })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      possible_match: false,
      result: 'incomplete',
      matches: [],
      matches_truncated: false,
      coverage: { status: 'partial' },
    })
    expect(await balance()).toBe(before - ACCOUNT_PRICE)
  })

  it('lets country reorder the matches without adding or removing one', async () => {
    // A name listed more than once, where an entry linked to some country is not first by default.
    const byName = new Map<string, string>()
    for (const record of [...unRecords, ...euRecords]) {
      for (const name of record.names) {
        const key = nameKeys(name)?.exact
        if (key && !byName.has(key)) byName.set(key, name)
      }
    }
    const lists = service.runtime.deps.sanctionsLists!
    let found: { name: string; country: string } | undefined
    for (const name of byName.values()) {
      const result = lists.screenName(name)
      if (result.status !== 'ok' || result.matches.length < 2) continue
      const first = result.matches[0]!
      const country = result.matches
        .slice(1)
        .flatMap((m) => m.countries)
        .find((c) => !first.countries.includes(c))
      if (country) {
        found = { name, country }
        break
      }
    }
    expect(found).toBeDefined()
    const { name, country } = found!
    const plain = (await screen({ name })).body.matches
    const { body } = await screen({ name, country })
    const ids = (matches: Match[]) => matches.map((m) => `${m.list_key}/${m.entry_id}`)
    expect(ids(body.matches).sort()).toEqual(ids(plain).sort())
    expect(ids(body.matches)).not.toEqual(ids(plain))
    expect(body.matches[0]!.countries).toContain(country)
    const linked = body.matches.map((m) => m.countries.includes(country))
    expect(linked).toEqual([...linked].sort((a, b) => Number(b) - Number(a)))
  })

  it('gives the same answer over MCP as over REST', async () => {
    const record = euRecords[50]!
    const client = new Client({ name: 'screen-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'X-API-Key': liveKey } },
      }),
    )
    const before = await balance()
    const result = await client.callTool({ name: 'sanctions_screen', arguments: { name: record.names[0] } })
    await client.close()
    expect(result.isError).toBeFalsy()
    expect(await balance()).toBe(before - ACCOUNT_PRICE)
    const { body } = await screen({ name: record.names[0] })
    const { screened_at: _a, ...tool } = result.structuredContent as unknown as ScreenBody
    const { screened_at: _b, ...rest } = body
    expect(tool).toEqual(rest)
    expect(tool.matches.some((m) => m.list_key === 'eu' && m.entry_id === record.id)).toBe(true)
  })

  it('refuses a sandbox key with 403', async () => {
    const { status } = await screen({ name: 'Anyone' }, sandboxKey)
    expect(status).toBe(403)
  })

  it('asks an anonymous caller for the x402 price with a 402 challenge', async () => {
    const { status, body } = await screen({ name: 'Anyone' }, null)
    expect(status).toBe(402)
    expect((body as unknown as { accepts: { amount: string }[] }).accepts[0]?.amount).toBe(
      X402_PRICE.toString(),
    )
  })

  it('validates the input strictly (422; a missing name is 400, spec: Errors)', async () => {
    expect((await screen({ name: 'Some Name', country: 'nl' })).status).toBe(422)
    expect((await screen({ name: 'Some Name', extra: true })).status).toBe(422)
    expect(await screen({})).toMatchObject({
      status: 400,
      body: { status: 400, detail: [{ field: 'name', message: 'is required' }] },
    })
  })

  it('answers 503 with a problem naming what to set, without Retry-After, and charges nothing, while no list is configured', async () => {
    const key = await empty.runtime.keys.create({ email: 'none@example.com', tier: 'pro', balance: usd('1') })
    const { status, body, headers } = await screen({ name: 'Anyone At All' }, key.apiKey, empty)
    expect(status).toBe(503)
    expect(body).toMatchObject({ status: 503, errorCode: 'service_not_configured', charged: false })
    expect(String(body.detail)).toContain('no list source is configured')
    expect(JSON.stringify(body)).toContain('SANCTIONS_OFAC_SOURCE')
    expect(headers.get('retry-after')).toBeNull()
    expect((await empty.runtime.keys.get(key.record.id))?.balanceMicros).toBe(usd('1'))
  })

  it('lets entity checks screen names against the loaded lists (and answer 503, uncharged, without any configured)', async () => {
    const entity = unRecords.find((r) => r.block.startsWith('<ENTITY>'))!
    const post = (target: Service, apiKey: string) =>
      target.app.request('/v1/entity/check', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        // DE: no register is covered, so the lists are the only essential part.
        body: JSON.stringify({ entity_name: entity.names[0], country: 'DE' }),
      })
    const flagged = (await (await post(service, liveKey)).json()) as {
      risk_factors: { factor: string; source: string }[]
      sources: { source: string; status: string; reason?: string }[]
    }
    expect(flagged.risk_factors).toContainEqual(
      expect.objectContaining({ source: 'sanctions', factor: 'sanctions_possible_match' }),
    )
    const key = await empty.runtime.keys.create({
      email: 'none2@example.com',
      tier: 'pro',
      balance: usd('5'),
    })
    // Without any list configured, the check cannot give what it sells: 503, nothing charged.
    const unscreened = await post(empty, key.apiKey)
    expect(unscreened.status).toBe(503)
    expect(await unscreened.json()).toMatchObject({ errorCode: 'service_not_configured', charged: false })
    expect((await empty.runtime.keys.get(key.record.id))?.balanceMicros).toBe(usd('5'))
  })
})
