import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { usd } from '../../core/money.ts'
import type { Service } from '../../server/compose.ts'
import { type CompanyFakes, startCompanyFakes } from '../support/company-fakes.ts'
import { createManualClock, type ManualClock } from '../support/fakes/index.ts'
import { createTestService, listen } from '../support/service.ts'

// Real NL and BE examples: KVK test company 68750110 (Test BV Donald) with the VAT number made
// from its RSIN, the Belgian enterprise Veneco (0200.065.765, BE0200065765), ABN AMRO and
// Belfius IBANs. The fakes answer in the upstreams' real formats.
const DONALD = { entity_name: 'Test BV Donald', country: 'NL', kvk_number: '68750110' }
const FULL = {
  ...DONALD,
  cbe_number: '0200.065.765',
  domain: 'example.com',
  iban: 'NL91ABNA0417164300',
  vat_number: 'NL857587973B01',
  wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  wallet_chain: 'eth',
  target_industries: ['6420', 'holding'],
  target_size: { min: 1, max: 10 },
}
const VENECO = { entity_name: 'Veneco', country: 'BE', cbe_number: '0200.065.765', iban: 'BE71096123456769' }

interface Body {
  [key: string]: unknown
  trust_score: number
  confidence: number
  sources_checked: number
  sources: { source: string; status: string; reason?: string }[]
  risk_factors: { factor: string; source: string; weight: number; status: string; evidence?: string }[]
}

describe('company checks against the fake upstreams', () => {
  let service: Service
  let fakes: CompanyFakes
  let clock: ManualClock
  let liveKey: string
  let otherKey: string

  beforeAll(async () => {
    clock = createManualClock(new Date())
    fakes = await startCompanyFakes({ clock, sanctioned: ['Blocked Trading LLC'] })
    service = await createTestService('pglite', {}, { clock })
    service.runtime.deps.companySources = fakes.sources
    service.runtime.deps.sanctions = fakes.sanctions
    liveKey = (
      await service.runtime.keys.create({ email: 'a@example.com', tier: 'pro', balance: usd('100') })
    ).apiKey
    otherKey = (
      await service.runtime.keys.create({ email: 'b@example.com', tier: 'pro', balance: usd('100') })
    ).apiKey
  })
  afterAll(async () => {
    await fakes?.close()
    await service?.close()
  })
  beforeEach(() => {
    fakes.behaveAll({ mode: 'normal', delayMs: 0 })
    fakes.sanctions.unavailableReason = undefined
  })

  async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
    const response = await service.app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': liveKey, ...headers },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as Body, headers: response.headers }
  }

  it('answers an entity check with every optional field with findings from every source', async () => {
    const { status, body, headers } = await post('/v1/entity/check', FULL)
    expect(status).toBe(200)
    expect(headers.get('x-charged-amount')).toBe(usd('0.58').toString())
    const sources = [
      'kvk',
      'kbo',
      'vies',
      'rdap',
      'dns',
      'tls',
      'bank_codes',
      'wallet_format',
      'country_risk',
      'sanctions',
    ]
    expect(body.sources.map((s) => s.source).sort()).toEqual([...sources].sort())
    expect(body.sources.every((s) => s.status === 'ok')).toBe(true)
    expect(body.sources_checked).toBe(10)
    for (const source of sources)
      expect(
        body.risk_factors.some((f) => f.source === source),
        source,
      ).toBe(true)
    const factors = body.risk_factors.map((f) => f.factor)
    expect(factors).toEqual(
      expect.arrayContaining([
        'registered_active',
        'register_name_match',
        'vat_valid',
        'vat_name_match',
        'domain_established',
        'mail_configured',
        'dmarc_enforced',
        'tls_valid',
        'iban_bank_identified',
        'wallet_format_valid',
        'sanctions_clear',
      ]),
    )
    // The CBE number is Veneco's, not Donald's: KBO says so.
    expect(body.risk_factors).toContainEqual(
      expect.objectContaining({ source: 'kbo', factor: 'register_name_mismatch' }),
    )
    expect(body.confidence).toBe(1)
    expect(body).toMatchObject({
      entity_name: 'Test BV Donald',
      country: 'NL',
      quality: 'fresh',
      information: { target_industries: ['6420', 'holding'], target_size: { min: 1, max: 10 } },
    })
    expect(body.entity_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(body.check_id).toEqual(expect.any(String))
  })

  it('recomputes the trust score from 50 plus the weights of its findings', async () => {
    const { body } = await post('/v1/entity/check', FULL)
    const sum = body.risk_factors.reduce((total, f) => total + f.weight, 0)
    expect(body.risk_factors.every((f) => f.status === 'ok')).toBe(true)
    expect(body.trust_score).toBe(Math.min(100, Math.max(0, 50 + sum)))
  })

  it.each([
    ['kvk', { mode: 'error', error: 'IPD9999' }, 'upstream_error'],
    ['vies', { mode: 'error', error: 'MS_UNAVAILABLE' }, 'upstream_busy'],
    ['rdap', { mode: 'error', error: 'http_503' }, 'upstream_error'],
    ['tls', { mode: 'reset' }, undefined],
  ] as const)(
    'reports %s down as unavailable and scores less certain, never better',
    async (name, behaviour, reason) => {
      const input = { ...FULL, cbe_number: undefined, entity_name: 'Test BV Donald' }
      const healthy = (await post('/v1/entity/check', input)).body
      fakes[name].behave(behaviour)
      const degraded = (await post('/v1/entity/check', input)).body
      const source = degraded.sources.find((s) => s.source === name)
      expect(source?.status).toBe('unavailable')
      if (reason) expect(source?.reason).toBe(reason)
      expect(degraded.risk_factors).toContainEqual(
        expect.objectContaining({ factor: `${name}_unavailable`, source: name, status: 'unavailable' }),
      )
      expect(degraded.sources_checked).toBe(healthy.sources_checked - 1)
      expect(degraded.trust_score).toBeLessThan(healthy.trust_score)
      expect(degraded.confidence).toBeLessThan(healthy.confidence)
    },
  )

  it('never lets target_industries or target_size change the score', async () => {
    const { target_industries: _i, target_size: _s, ...plain } = FULL
    const without = (await post('/v1/entity/check', plain)).body
    const withInfo = (
      await post('/v1/entity/check', { ...plain, target_industries: ['01'], target_size: { min: 0, max: 0 } })
    ).body
    for (const key of ['trust_score', 'cluster', 'recommendation', 'confidence', 'sources_checked']) {
      expect(withInfo[key], key).toEqual(without[key])
    }
    // Evidence carries times (the VIES request date), so compare what scores: factor and weight.
    const scored = (body: Body) => body.risk_factors.map((f) => [f.source, f.factor, f.weight, f.status])
    expect(scored(withInfo)).toEqual(scored(without))
    expect(without.information).toBeUndefined()
    expect(withInfo.information).toMatchObject({ target_industries: ['01'] })
  })

  it('recognises a Solana or Bitcoin wallet_address without wallet_chain; a chain given must match', async () => {
    const base = { entity_name: 'Test BV Donald', country: 'NL' }
    for (const [address, chain] of [
      ['9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', 'sol'],
      ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'btc'],
      ['0x52908400098527886E0F7030069857D2E4169EE7', 'eth'],
    ] as const) {
      const { status, body } = await post('/v1/entity/check', { ...base, wallet_address: address })
      expect(status, address).toBe(200)
      expect(body.risk_factors, address).toContainEqual(
        expect.objectContaining({
          factor: 'wallet_format_valid',
          evidence: `${address} is a well-formed ${chain} address (format only, no on-chain lookup)`,
        }),
      )
    }
    const mismatch = await post('/v1/entity/check', {
      ...base,
      wallet_address: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
      wallet_chain: 'eth',
    })
    expect(mismatch).toMatchObject({
      status: 422,
      body: { detail: [{ field: 'wallet_address', message: expect.stringContaining('wallet_chain eth') }] },
    })
  })

  it('verifies the real Belgian enterprise Veneco in the KBO data and names its bank (Belfius)', async () => {
    const { body } = await post('/v1/entity/check', VENECO)
    expect(body.risk_factors.map((f) => f.factor)).toEqual(
      expect.arrayContaining(['registered_active', 'register_name_match', 'iban_bank_identified']),
    )
    expect(body.sources.map((s) => s.source)).toEqual(expect.arrayContaining(['kbo', 'bank_codes']))
    expect(body.sources.map((s) => s.source)).not.toContain('kvk')
  })

  it('searches KVK by name for a Dutch company without a number', async () => {
    const { body } = await post('/v1/entity/check', { entity_name: 'Test BV Donald', country: 'NL' })
    expect(body.sources.map((s) => s.source)).toContain('kvk')
    expect(body.risk_factors.find((f) => f.source === 'kvk')?.factor).toMatch(
      /register_name_found|not_in_register/,
    )
  })

  it('says the register was not checked for a Belgian company without a number, and not covered elsewhere', async () => {
    const be = (await post('/v1/entity/check', { entity_name: 'Veneco', country: 'BE' })).body
    expect(be.risk_factors).toContainEqual(
      expect.objectContaining({ factor: 'register_not_checked', status: 'not_checked', weight: 0 }),
    )
    const de = (await post('/v1/entity/check', { entity_name: 'Siemens AG', country: 'DE' })).body
    expect(de.risk_factors).toContainEqual(expect.objectContaining({ factor: 'register_not_covered' }))
    expect(de.confidence).toBeLessThan(1)
  })

  it.each([
    ['kvk_number', '6875011'],
    ['cbe_number', '0200.065.766'],
    ['vat_number', 'NL123456789B01'],
    ['vat_number', 'BE0200065766'],
    ['iban', 'NL91ABNA0417164301'],
    ['iban', 'BE71096123456760'],
  ])('refuses the invalid %s %s with 422 before any source is called', async (field, value) => {
    const response = await post('/v1/entity/check', { ...DONALD, [field]: value })
    expect(response.status).toBe(422)
    expect(JSON.stringify(response.body.detail)).toContain(field)
  })

  it('says what is wrong: VAT check digits that do not match, a territory code that uses the French IBAN', async () => {
    const vat = await post('/v1/entity/check', { ...DONALD, vat_number: 'BG175074751' })
    expect(vat).toMatchObject({
      status: 422,
      body: {
        detail: [{ field: 'vat_number', message: expect.stringContaining('check digits that do not match') }],
      },
    })
    const iban = await post('/v1/entity/check', { ...DONALD, iban: 'RE4220041010050500013M02606' })
    expect(iban).toMatchObject({
      status: 422,
      body: { detail: [{ field: 'iban', message: expect.stringContaining('French IBAN, use FR…') }] },
    })
  })

  it('reports sanctions as unavailable when no lists are loaded, and never approves then', async () => {
    fakes.sanctions.unavailableReason = 'sanctions_lists_not_loaded'
    const { body } = await post('/v1/entity/check', FULL)
    expect(body.sources).toContainEqual(
      expect.objectContaining({
        source: 'sanctions',
        status: 'unavailable',
        reason: 'sanctions_lists_not_loaded',
      }),
    )
    expect(body.recommendation).not.toBe('approve')
  })

  it('flags a sanctions match: cluster sanctions_flagged, reject', async () => {
    const { body } = await post('/v1/entity/check', { entity_name: 'Blocked Trading LLC', country: 'AE' })
    expect(body).toMatchObject({ cluster: 'sanctions_flagged', recommendation: 'reject' })
    expect(body.trust_score).toBeLessThanOrEqual(10)
  })

  it('answers the cached tier from a stored check younger than 24 hours, else runs fresh', async () => {
    const input = {
      entity_name: 'Test BV Donald',
      country: 'NL',
      kvk_number: '68750110',
      domain: 'voorbeeld.nl',
    }
    const first = (await post('/v1/entity/check', input)).body
    const kvkCalls = fakes.kvk.requests.length
    const cached = await post(
      '/v1/entity/check',
      { ...input, target_size: { min: 2, max: 3 } },
      {
        'x-response-quality': 'cached',
      },
    )
    expect(cached.body).toMatchObject({
      quality: 'cached',
      check_id: first.check_id,
      trust_score: first.trust_score,
      cached_from: { check_id: first.check_id, quality: 'fresh' },
      information: { target_size: { min: 2, max: 3 } },
    })
    expect(cached.headers.get('x-charged-amount')).toBe(usd('0.11').toString())
    expect(fakes.kvk.requests.length).toBe(kvkCalls)
    clock.advance(25 * 60 * 60 * 1000)
    const stale = (await post('/v1/entity/check', input, { 'x-response-quality': 'cached' })).body
    expect(stale.quality).toBe('fresh')
    expect(stale.check_id).not.toBe(first.check_id)
    expect(fakes.kvk.requests.length).toBe(kvkCalls + 1)
  })

  it('adds register details and screens the register names in the enhanced tier', async () => {
    const before = fakes.sanctions.screened.length
    const { body } = await post(
      '/v1/entity/check',
      { ...DONALD, vat_number: 'NL857587973B01' },
      {
        'x-response-quality': 'enhanced',
      },
    )
    expect(body.quality).toBe('enhanced')
    expect(body.register_profile).toMatchObject({
      register: 'KVK',
      number: '68750110',
      vat: { name: 'TEST BV DONALD' },
    })
    expect(fakes.sanctions.screened.slice(before)).toEqual(['Test BV Donald', 'Test Donald Boot'])
  })

  it('keeps its history per key: 404 for another key and for an unknown hash', async () => {
    const { body } = await post('/v1/entity/check', VENECO)
    const path = `/v1/reputation/history/${body.entity_hash}`
    const mine = await service.app.request(path, { headers: { 'x-api-key': liveKey } })
    expect(mine.status).toBe(200)
    const history = (await mine.json()) as {
      total: number
      checks: { check_id: string; trust_score: number }[]
    }
    expect(history.checks[0]).toMatchObject({ check_id: body.check_id, trust_score: body.trust_score })
    const theirs = await service.app.request(path, { headers: { 'x-api-key': otherKey } })
    expect(theirs.status).toBe(404)
    const unknown = await service.app.request(`/v1/reputation/history/${'0'.repeat(64)}`, {
      headers: { 'x-api-key': liveKey },
    })
    expect(unknown.status).toBe(404)
    expect((await service.app.request(path)).status).toBe(401)
  })

  it('scores risk from country and sanctions, higher for riskier countries', async () => {
    const nl = (await post('/v1/risk/score', { entity_name: 'Test BV Donald', country: 'NL' })).body
    const ru = (await post('/v1/risk/score', { entity_name: 'Test BV Donald', country: 'RU' })).body
    expect(nl).toMatchObject({ risk_score: 10, risk_level: 'low', quality: 'fresh' })
    expect(ru.risk_score).toBeGreaterThan(nl.risk_score as number)
    fakes.sanctions.unavailableReason = 'sanctions_lists_not_loaded'
    const unsure = (await post('/v1/risk/score', { entity_name: 'Test BV Donald', country: 'NL' })).body
    expect(unsure.risk_score).toBe(25)
  })

  it('bases reputation on the key’s stored check and decays it from there', async () => {
    const name = { entity_name: 'Reputation Test BV', country: 'NL' }
    await post('/v1/entity/check', name)
    const first = (await post('/v1/reputation/score', name)).body
    expect(first).toMatchObject({ basis: 'stored_check', days_since_verification: 0, quality: 'fresh' })
    clock.advance(21 * 86_400_000)
    const later = (await post('/v1/reputation/score', name)).body
    expect(later.reputation_score).toBeLessThan(first.reputation_score as number)
    expect(later.trend).toBe('declining')
    const given = (
      await post('/v1/reputation/score', {
        entity_name: 'Anyone',
        trust_score: 80,
        cluster: 'sanctions_flagged',
        last_verified_at: clock.now().getTime() / 1000 - 60 * 86_400,
        verification_count: 3,
      })
    ).body
    expect(given).toMatchObject({ reputation_score: 80, basis: 'input', repeat_bonus: 0, decay_points: 0 })
    // country is required unless trust_score and cluster are both sent: missing, so 400 (spec: Errors).
    const missingCountry = await post('/v1/reputation/score', { entity_name: 'Anyone', trust_score: 80 })
    expect(missingCountry.status).toBe(400)
    expect(missingCountry.body).toMatchObject({
      detail: [{ field: 'country', message: 'is required unless trust_score and cluster are sent' }],
    })
  })

  it('verifies a Dutch KYB by number and fails an unknown one', async () => {
    const ok = (
      await post('/v1/kyb/check', {
        entity_id: 'c-1',
        registration_number: '68750110',
        country: 'NL',
        vat_number: 'NL857587973B01',
        domain: 'example.com',
      })
    ).body
    expect(ok).toMatchObject({
      register_verified: true,
      register_checked: 'KVK',
      sanctions_flagged: false,
      sanctions_status: 'ok',
      kyb_status: 'verified',
      verified: true,
    })
    expect(fakes.sanctions.screened).toContain('Test BV Donald')
    const unknown = (
      await post('/v1/kyb/check', { entity_id: 'c-2', registration_number: '12345678', country: 'NL' })
    ).body
    expect(unknown).toMatchObject({ register_verified: false, kyb_status: 'failed', verified: false })
  })

  it('verifies Veneco in KBO by its VAT-style number and stays in review when VIES is down', async () => {
    fakes.vies.behave({ mode: 'error', error: 'MS_UNAVAILABLE' })
    const { body } = await post('/v1/kyb/check', {
      entity_id: 'be-1',
      registration_number: 'BE0200065765',
      country: 'BE',
      entity_name: 'Veneco',
      vat_number: 'BE0200065765',
    })
    expect(body).toMatchObject({ register_checked: 'KBO', register_verified: true, kyb_status: 'review' })
  })

  it('serves the real entity check over MCP with a live key, the same as REST', async () => {
    const server = await listen(service)
    const client = new Client({ name: 'test-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'X-API-Key': liveKey } },
      }),
    )
    try {
      const result = await client.callTool({ name: 'entity_check', arguments: VENECO })
      expect(result.isError).toBeFalsy()
      const tool = result.structuredContent as Body
      const rest = (await post('/v1/entity/check', VENECO)).body
      expect(tool.trust_score).toBe(rest.trust_score)
      expect(tool.risk_factors).toEqual(rest.risk_factors)
      expect(tool.sources.map((s) => s.source)).toEqual(rest.sources.map((s) => s.source))
    } finally {
      await client.close()
      await server.close()
    }
  })
})
