import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { usd } from '../../core/money.ts'
import type { Service } from '../../server/compose.ts'
import { type LeadFakes, startLeadFakes } from '../support/lead-fakes.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'
import { createTestService, listen } from '../support/service.ts'

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field in assertions
type Body = Record<string, any>

/**
 * What the service says when it could not check everything: a service holding only the UN list
 * (the OFAC and EU sources are configured but unreadable: an upstream failure) never answers
 * "clear" on any operation that promises a sanctions screen; a resolver that answers NXDOMAIN
 * (or NODATA) for every name never turns into "does not exist" (or "no mail server"); a service whose lists are still loading
 * answers 503 with Retry-After and charges nothing.
 */
describe('honest answers: only the UN list, a resolver that answers NXDOMAIN for every name', () => {
  let service: Service
  let fakes: LeadFakes
  let liveKey: string
  let liveKeyId: string

  beforeAll(async () => {
    fakes = await startLeadFakes()
    service = await createTestService('pglite', {
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/csv/no-such-folder/sdn.csv'),
      SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    })
    await service.runtime.deps.sanctionsLists?.idle()
    // The real adapters against fakes on 127.0.0.1; the sanctions port stays the service's own.
    service.runtime.deps.companySources = fakes.sources
    fakes.dns.behave({ mode: 'error', error: 'nxdomain' })
    fakes.leadDns.behave({ mode: 'error', error: 'nxdomain' })
    const live = await service.runtime.keys.create({
      email: 'honest@example.com',
      tier: 'enterprise',
      balance: usd('50'),
    })
    liveKey = live.apiKey
    liveKeyId = live.record.id
  }, 120_000)
  afterAll(async () => {
    await service?.close()
    await fakes?.close()
  })

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
    const response = await service.app.request(path, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': liveKey },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, body: (await response.json()) as Body }
  }

  /** Nothing in the answer reads as a clear sanctions result. */
  function expectNoClear(label: string, body: Body): void {
    const text = JSON.stringify(body)
    expect(text, label).not.toContain('"sanctions_clear"')
    expect(text, label).not.toContain('"wallet_sanctions_clear"')
    expect(text, label).not.toMatch(/"result":"clear"/)
    expect(text, label).not.toMatch(/"coverage":\{"status":"complete"/)
    expect(text, label).not.toMatch(/"sanctions_coverage":\{"status":"complete"/)
    expect(text, label).not.toMatch(/"sanctions_status":"ok"/)
    expect(text, label).not.toContain('on OFAC, EU and UN lists')
  }

  it('answers no "clear" on any operation that screens names or wallets (every one is listed here)', async () => {
    const tried: string[] = []
    const run = async (label: string, method: string, path: string, body?: unknown) => {
      const answer = await call(method, path, body)
      expect(answer.status, `${label}: ${JSON.stringify(answer.body)}`).toBeLessThan(300)
      expectNoClear(label, answer.body)
      tried.push(label)
      return answer.body
    }

    const screen = await run('sanctions_screen exact', 'POST', '/v1/sanctions/screen', {
      name: 'Nobody In Particular',
    })
    expect(screen).toMatchObject({
      possible_match: false,
      result: 'incomplete',
      coverage: { status: 'partial' },
    })
    expect(screen.coverage.lists_checked.map((list: Body) => list.list_key)).toEqual(['un'])
    expect(
      screen.coverage.lists_not_checked.map((list: Body) => [list.list_key, list.reason]).sort(),
    ).toEqual([
      ['eu', 'load_failed'],
      ['ofac_sdn', 'load_failed'],
    ])
    const fuzzy = await run('sanctions_screen fuzzy', 'POST', '/v1/sanctions/screen', {
      name: 'Nobody In Particular',
      match: 'fuzzy',
    })
    expect(fuzzy).toMatchObject({ result: 'incomplete', coverage: { status: 'partial' } })

    const entity = await run('entity_check', 'POST', '/v1/entity/check', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
      wallet_address: '0x000000000000000000000000000000000000dEaD',
      wallet_chain: 'eth',
    })
    const factors = (entity.risk_factors as Body[]).map((factor) => factor.factor)
    expect(factors).toContain('sanctions_partial')
    // OFAC SDN (the only list with digital currency addresses) is not held: not "not listed".
    expect(factors).toContain('wallet_screen_partial')
    expect(entity.sanctions_coverage).toMatchObject({ status: 'partial' })
    expect(entity.recommendation).not.toBe('approve')
    expect(entity.recommendation_reasons).toEqual([
      expect.stringMatching(/^manual_review: the sanctions screen is partial: not checked: /),
    ])
    expect(entity.sources).toContainEqual(expect.objectContaining({ source: 'sanctions', status: 'partial' }))

    const risk = await run('risk_score', 'POST', '/v1/risk/score', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
    })
    expect(risk.sources).toContainEqual(expect.objectContaining({ source: 'sanctions', status: 'partial' }))

    const reputation = await run('reputation_score', 'POST', '/v1/reputation/score', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
    })
    // Built on the entity check above (stored): its partial coverage travels with the score.
    expect(reputation).toMatchObject({ basis: 'stored_check', sanctions_coverage: { status: 'partial' } })
    const fresh = await run('reputation_score (fresh check)', 'POST', '/v1/reputation/score', {
      entity_name: 'Another Trading GmbH',
      country: 'DE',
    })
    expect(fresh).toMatchObject({ basis: 'fresh_check', sanctions_coverage: { status: 'partial' } })

    const kyb = await run('kyb_check', 'POST', '/v1/kyb/check', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
      entity_id: 'honest-1',
      registration_number: 'HRB 12345',
    })
    expect(kyb).toMatchObject({ sanctions_status: 'partial' })
    expect(kyb.kyb_status).not.toBe('verified')

    const report = await run('entity_report', 'POST', '/v1/reports/entity', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
    })
    expect(report.sanctions).toMatchObject({ status: 'partial', coverage: { status: 'partial' } })

    const lead = await run('leads_verify', 'POST', '/v1/leads/verify', {
      country: 'NL',
      company_name: 'Test BV Donald',
      kvk_number: '68750110',
      contact_name: 'Jan de Vries',
    })
    const sanctionsCheck = (lead.checks as Body[]).find((check) => check.check === 'sanctions')
    expect(sanctionsCheck).toMatchObject({ status: 'partial', coverage: { status: 'partial' } })
    expect(sanctionsCheck?.reason).toMatch(/on UN .*not checked: .*not cleared/)
    expect(lead.verdict).not.toBe('proceed')

    const watched = await run('watchlist add (name)', 'POST', '/v1/watchlist', {
      type: 'name',
      value: 'Nobody In Particular',
    })
    expect(watched.screening).toMatchObject({ coverage: { status: 'partial' } })
    const wallet = await run('watchlist add (wallet)', 'POST', '/v1/watchlist', {
      type: 'wallet',
      value: '0x000000000000000000000000000000000000dEaD',
    })
    expect(wallet.screening).toMatchObject({ coverage: { status: 'none' } })

    const alerts = await run('compliance_alerts', 'GET', '/v1/compliance/alerts')
    expect(alerts.coverage).toMatchObject({ status: 'partial' })

    expect(tried).toEqual([
      'sanctions_screen exact',
      'sanctions_screen fuzzy',
      'entity_check',
      'risk_score',
      'reputation_score',
      'reputation_score (fresh check)',
      'kyb_check',
      'entity_report',
      'leads_verify',
      'watchlist add (name)',
      'watchlist add (wallet)',
      'compliance_alerts',
    ])
  }, 120_000)

  it('answers no "clear" over MCP either: the same tools, the same partial coverage', async () => {
    const tool = async (name: string, args: Record<string, unknown>) => {
      const result = await service.mcp.call({ name, arguments: args }, liveKey)
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy()
      const body = result.structuredContent as Body
      expectNoClear(`${name} (MCP)`, body)
      return body
    }
    const screen = await tool('sanctions_screen', { name: 'Nobody In Particular' })
    expect(screen).toMatchObject({ result: 'incomplete', coverage: { status: 'partial' } })
    const entity = await tool('entity_check', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
      wallet_address: '0x000000000000000000000000000000000000dEaD',
      wallet_chain: 'eth',
    })
    const factors = (entity.risk_factors as Body[]).map((factor) => factor.factor)
    expect(factors).toEqual(expect.arrayContaining(['sanctions_partial', 'wallet_screen_partial']))
    expect(entity.recommendation).not.toBe('approve')
    const kyb = await tool('kyb_check', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
      entity_id: 'honest-mcp-1',
      registration_number: 'HRB 12345',
    })
    expect(kyb).toMatchObject({ sanctions_status: 'partial' })
    const lead = await tool('leads_verify', {
      country: 'NL',
      company_name: 'Test BV Donald',
      kvk_number: '68750110',
      contact_name: 'Jan de Vries',
    })
    expect((lead.checks as Body[]).find((check) => check.check === 'sanctions')).toMatchObject({
      status: 'partial',
    })
    expect(lead.verdict).not.toBe('proceed')
  }, 60_000)

  it('reports the domain check unavailable, not "does not exist", when the resolver answers NXDOMAIN for everything', async () => {
    const entity = await call('POST', '/v1/entity/check', {
      entity_name: 'Example Trading GmbH',
      country: 'DE',
      domain: 'example.com',
    })
    expect(entity.status).toBe(200)
    expect(entity.body.sources).toContainEqual(
      expect.objectContaining({ source: 'dns', status: 'unavailable', reason: 'resolver_unreliable' }),
    )
    expect(JSON.stringify(entity.body)).not.toContain('does not exist')
    const dnsFactors = (entity.body.risk_factors as Body[]).filter((factor) => factor.source === 'dns')
    for (const factor of dnsFactors) expect(factor.status).toBe('unavailable')

    const lead = await call('POST', '/v1/leads/verify', {
      country: 'NL',
      company_name: 'Test BV Donald',
      kvk_number: '68750110',
      email: 'donald.test@gmail.com',
    })
    expect(lead.status).toBe(200)
    const email = (lead.body.checks as Body[]).find((check) => check.check === 'email')
    expect(email).toMatchObject({ status: 'unavailable', source: 'dns' })
    const flags = (lead.body.flags as Body[]).map((flag) => flag.code)
    expect(flags).not.toContain('email_no_mail_server')
    // gmail.com is a free-mail domain whatever DNS answered: that fact stays.
    expect(flags).toContain('free_mail_address')
    expect(JSON.stringify(lead.body)).not.toContain('does not exist')
  }, 60_000)

  it('reports the domain check unavailable, not "no mail server", when the resolver answers NODATA (no records) for everything', async () => {
    fakes.dns.behave({ mode: 'error', error: 'nodata' })
    fakes.leadDns.behave({ mode: 'error', error: 'nodata' })
    try {
      const entity = await call('POST', '/v1/entity/check', {
        entity_name: 'Example Trading GmbH',
        country: 'DE',
        domain: 'example.com',
      })
      expect(entity.status).toBe(200)
      expect(entity.body.sources).toContainEqual(
        expect.objectContaining({ source: 'dns', status: 'unavailable', reason: 'resolver_unreliable' }),
      )
      const dnsFactors = (entity.body.risk_factors as Body[]).filter((factor) => factor.source === 'dns')
      for (const factor of dnsFactors) expect(factor.status).toBe('unavailable')
      const factorNames = (entity.body.risk_factors as Body[]).map((factor) => factor.factor)
      for (const finding of ['no_mail_server', 'spf_missing', 'dmarc_missing', 'domain_does_not_resolve'])
        expect(factorNames).not.toContain(finding)

      const lead = await call('POST', '/v1/leads/verify', {
        country: 'NL',
        company_name: 'Test BV Donald',
        kvk_number: '68750110',
        email: 'donald.test@gmail.com',
      })
      expect(lead.status).toBe(200)
      const email = (lead.body.checks as Body[]).find((check) => check.check === 'email')
      expect(email).toMatchObject({ status: 'unavailable', source: 'dns' })
      const flags = (lead.body.flags as Body[]).map((flag) => flag.code)
      expect(flags).not.toContain('email_no_mail_server')
      expect(flags).toContain('free_mail_address')
      expect(JSON.stringify(lead.body)).not.toContain('has no mail server')
    } finally {
      fakes.dns.behave({ mode: 'error', error: 'nxdomain' })
      fakes.leadDns.behave({ mode: 'error', error: 'nxdomain' })
    }
  }, 60_000)

  it('charged every answer above from the balance (they are answers, with what was missing said)', async () => {
    const record = await service.runtime.keys.get(liveKeyId)
    expect(record!.balanceMicros).toBeLessThan(usd('50'))
  })
})

describe('honest answers: lists still loading are a 503 that charges nothing', () => {
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let silent: Server
  let key: string
  let keyId: string

  beforeAll(async () => {
    // The list sources accept the connection and never answer: the first read is pending.
    silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
    service = await createTestService('pglite', {
      SANCTIONS_OFAC_SOURCE: `${silentUrl}/sdn.xml`,
      SANCTIONS_EU_SOURCE: `${silentUrl}/eu.xml`,
      SANCTIONS_UN_SOURCE: `${silentUrl}/un.xml`,
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
      // A chain RPC is configured (unreachable): only the lists keep the agent check from running.
      AGENT_CHAIN: 'base-sepolia',
      BASE_SEPOLIA_RPC_URL: 'http://127.0.0.1:9',
    } as never)
    service.runtime.deps.companySources = {}
    server = await listen(service)
    const created = await service.runtime.keys.create({
      email: 'wait@example.com',
      tier: 'pro',
      balance: usd('5'),
    })
    key = created.apiKey
    keyId = created.record.id
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
    silent?.closeAllConnections()
    await new Promise((resolve) => silent?.close(resolve))
  })

  const balance = async () => (await service.runtime.keys.get(keyId))!.balanceMicros

  it.each([
    ['agent_check', '/v1/agent/check', { wallet: '0x000000000000000000000000000000000000dEaD' }],
    ['entity_check', '/v1/entity/check', { entity_name: 'Example Trading GmbH', country: 'DE' }],
    ['sanctions_screen', '/v1/sanctions/screen', { name: 'Kim' }],
  ])('%s over REST: 503 service_not_ready with Retry-After, balance unchanged', async (_id, path, body) => {
    const before = await balance()
    const response = await service.app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    })
    const problem = (await response.json()) as Body
    expect(response.status, JSON.stringify(problem)).toBe(503)
    expect(response.headers.get('retry-after')).toBe('60')
    expect(problem).toMatchObject({ errorCode: 'service_not_ready', charged: false })
    expect(problem.parts_not_ready).toContainEqual(
      expect.objectContaining({ part: 'sanctions', reason: 'loading' }),
    )
    expect(await balance()).toBe(before)
  })

  it('agent_check over MCP: the same 503, balance unchanged', async () => {
    const before = await balance()
    const client = new Client({ name: 'honest-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'X-API-Key': key } },
      }),
    )
    try {
      const result = (await client.callTool({
        name: 'agent_check',
        arguments: { wallet: '0x000000000000000000000000000000000000dEaD' },
      })) as { isError?: boolean; content: { type: string; text: string }[] }
      expect(result.isError).toBe(true)
      const text = result.content.map((part) => part.text).join('\n')
      expect(text).toContain('service_not_ready')
      expect(text).toMatch(/"retryAfter":\s*60/)
    } finally {
      await client.close()
    }
    expect(await balance()).toBe(before)
  })
})

describe('honest answers: an entity check in which only the country risk could be read', () => {
  let service: Service
  let key: string
  let keyId: string

  beforeAll(async () => {
    // Every list source is configured and unreadable (an upstream failure): no list is held.
    service = await createTestService('pglite', {
      SANCTIONS_UN_SOURCE: sanctionsDataPath('un/no-such-file.xml'),
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/csv/no-such-folder/sdn.csv'),
      SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    })
    await service.runtime.deps.sanctionsLists?.idle()
    service.runtime.deps.companySources = {}
    const created = await service.runtime.keys.create({
      email: 'none@example.com',
      tier: 'pro',
      balance: usd('5'),
    })
    key = created.apiKey
    keyId = created.record.id
  })
  afterAll(async () => {
    await service?.close()
  })

  it('answers 503 no_source_answered with Retry-After, not a reject, and charges nothing', async () => {
    const before = (await service.runtime.keys.get(keyId))!.balanceMicros
    const response = await service.app.request('/v1/entity/check', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ entity_name: 'Example Trading GmbH', country: 'DE' }),
    })
    const problem = (await response.json()) as Body
    expect(response.status, JSON.stringify(problem)).toBe(503)
    expect(response.headers.get('retry-after')).toBe('30')
    expect(problem).toMatchObject({
      errorCode: 'no_source_answered',
      charged: false,
      unavailable_sources: [{ source: 'sanctions', reason: 'sanctions_lists_not_loaded' }],
    })
    expect(JSON.stringify(problem)).not.toContain('reject')
    expect((await service.runtime.keys.get(keyId))!.balanceMicros).toBe(before)
  })

  it('answers the entity_check tool with the same 503 over MCP, and charges nothing', async () => {
    const before = (await service.runtime.keys.get(keyId))!.balanceMicros
    const result = await service.mcp.call(
      { name: 'entity_check', arguments: { entity_name: 'Example Trading GmbH', country: 'DE' } },
      key,
    )
    expect(result.isError).toBe(true)
    const text = JSON.stringify(result.content)
    expect(text).toContain('no_source_answered')
    expect(text).not.toContain('reject')
    expect((await service.runtime.keys.get(keyId))!.balanceMicros).toBe(before)
  })
})
