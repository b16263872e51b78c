import { readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { PaymentRequired } from '@x402/core/types'
import { wrapFetchWithPayment } from '@x402/fetch'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICES } from '../../core/payments/pricing.ts'
import type { Service } from '../../server/compose.ts'
import { AGENT_WORLD_FUNDS, type AgentWorld, startAgentWorld } from '../support/chain/agent-fixtures.ts'
import { officialV2Client } from '../support/chain/official-payer.ts'
import { startCompanyFakes } from '../support/company-fakes.ts'
import { sanctionsDataPath } from '../support/sanctions/shared-data.ts'
import { createTestService, listen } from '../support/service.ts'
import { paymentRequiredOf } from '../support/tool-errors.ts'

/** A real OFAC-listed ETH address (Lazarus Group), in the 2024-05-03 SDN CSV and in the 2025-11-19 derived ETH list. */
const OFAC_ETH = '0x098B716B8Aaf21512996dC57EB0615e2383E2f96'
const OFAC_CSV = 'ofac/csv/2024-05-03/sdn.csv'
const DERIVED_ETH = 'ofac/dca_lists_derived/2025-11-19/sanctioned_addresses_ETH.txt'

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field in assertions
type Body = Record<string, any>

describe('agent wallet checks on a local chain with the ERC-8004 reference registries', () => {
  let world: AgentWorld
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let liveKey: string
  let liveKeyId: string
  let sandboxKey: string

  beforeAll(async () => {
    world = await startAgentWorld()
    service = await createTestService('pglite', {
      ...world.env(),
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath(OFAC_CSV),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    } as never)
    await service.runtime.deps.sanctionsLists?.idle()
    server = await listen(service)
    const live = await service.runtime.keys.create({
      email: 'agent@example.test',
      tier: 'starter',
      balance: 20_000_000n,
    })
    liveKey = live.apiKey
    liveKeyId = live.record.id
    sandboxKey = (await service.runtime.keys.create({ email: 'sandbox@example.test', tier: 'sandbox' }))
      .apiKey
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    await service?.close()
    await world?.stop()
  })

  const check = async (body: unknown, key = liveKey) => {
    const response = await fetch(`${server.baseUrl}/v1/agent/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as Body }
  }

  it('gives a clean, funded agent wallet `proceed` with every chain part read (REST, key)', async () => {
    const before = (await service.runtime.keys.get(liveKeyId))!.balanceMicros
    const { status, body } = await check({
      wallet: world.clean.wallet.toLowerCase(),
      agent_id: world.clean.agentId.toString(),
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      wallet: world.clean.wallet,
      chain_id: 84532,
      verdict: 'proceed',
      ran: ['sanctions', 'balance', 'identity', 'reputation', 'wallet_risk'],
      did_not_run: ['domain'],
      sanctions: {
        status: 'ok',
        hit: false,
        lists: [],
        list_status: 'current',
        list_as_of: expect.any(String),
      },
      balance: {
        status: 'ok',
        chain_id: 84532,
        balance_usdc: 50,
        balance_usdc_raw: AGENT_WORLD_FUNDS.toString(),
      },
      identity: {
        status: 'ok',
        registry: world.registries.identity,
        wallet_agent_ids: [world.clean.agentId.toString()],
        agent_registered: true,
        agent_owner: world.clean.owner,
        agent_wallet: world.clean.wallet,
        wallet_controls_agent: true,
      },
      reputation: {
        status: 'ok',
        agents: [{ agent_id: world.clean.agentId.toString(), feedback_count: 4, distinct_clients: 3 }],
      },
      wallet_risk: { status: 'ok', risk_score: 0, risk_level: 'low', rules_fired: [] },
      domain: { status: 'not_requested', web_score: null },
      schema_version: expect.any(String),
    })
    expect(Date.parse(body.checked_at)).not.toBeNaN()
    const after = (await service.runtime.keys.get(liveKeyId))!.balanceMicros
    expect(before - after).toBe(PRICES.agent_check.account.fresh)
  })

  it('probes the domain (RDAP, DNS, TLS fakes) and reports it without changing the verdict', async () => {
    const fakes = await startCompanyFakes({ delayMs: 0, timeoutMs: 5000 })
    const sources = service.runtime.deps.companySources
    service.runtime.deps.companySources = fakes.sources
    try {
      const { body } = await check({
        wallet: world.clean.wallet,
        agent_id: world.clean.agentId.toString(),
        domain: 'example.com',
      })
      expect(body.verdict).toBe('proceed')
      expect(body.ran).toContain('domain')
      expect(body.domain).toMatchObject({
        status: 'ok',
        domain: 'example.com',
        probes: { rdap: 'ok', dns: 'ok', tls: 'ok' },
        has_mx: expect.any(Boolean),
        ssl_valid: expect.any(Boolean),
        web_score: expect.any(Number),
      })
    } finally {
      service.runtime.deps.companySources = sources
      await fakes.close()
    }
  })

  it('sends a wallet with no ERC-8004 identity to `review`', async () => {
    const { body } = await check({ wallet: world.unregistered })
    expect(body.verdict).toBe('review')
    expect(body.identity).toMatchObject({ status: 'ok', wallet_agent_ids: [], agent_id: null })
    expect(body.wallet_risk.rules_fired.map((rule: Body) => rule.rule)).toEqual(['no_agent_identity'])
  })

  it('flags a wallet claiming an agent registered to someone else', async () => {
    const { body } = await check({ wallet: world.clean.wallet, agent_id: world.other.agentId.toString() })
    expect(body).toMatchObject({
      verdict: 'review',
      identity: { agent_registered: true, agent_owner: world.other.owner, wallet_controls_agent: false },
    })
    expect(body.wallet_risk.rules_fired.map((rule: Body) => rule.rule)).toContain(
      'agent_registered_to_other_owner',
    )
    expect(body.verdict_reasons.join(' ')).toContain('agent_registered_to_other_owner')
  })

  it('flags an agent id that is not registered, and an empty wallet without history', async () => {
    const { body } = await check({ wallet: world.empty, agent_id: '4242' })
    expect(body.verdict).toBe('review')
    expect(body.identity).toMatchObject({
      agent_registered: false,
      agent_owner: null,
      wallet_controls_agent: false,
    })
    expect(body.wallet_risk.rules_fired.map((rule: Body) => rule.rule)).toEqual(
      expect.arrayContaining(['agent_not_registered', 'empty_wallet_no_history']),
    )
  })

  it('blocks a real OFAC-listed address over REST paid by @x402/fetch', async () => {
    expect(readFileSync(sanctionsDataPath(DERIVED_ETH), 'utf8').toLowerCase()).toContain(
      OFAC_ETH.toLowerCase(),
    )
    const before = await world.setup.usdc.balanceOf(world.setup.payTo)
    const paying = wrapFetchWithPayment(fetch, officialV2Client(world.setup, world.x402PayerKeys[0]!))
    const response = await paying(`${server.baseUrl}/v1/agent/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wallet: OFAC_ETH.toLowerCase() }),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as Body
    expect(body).toMatchObject({
      wallet: OFAC_ETH,
      verdict: 'block',
      sanctions: {
        status: 'ok',
        hit: true,
        lists: ['OFAC SDN'],
        programs: expect.arrayContaining(['DPRK3']),
      },
      wallet_risk: { risk_level: 'critical' },
    })
    expect((await world.setup.usdc.balanceOf(world.setup.payTo)) - before).toBe(PRICES.agent_check.x402.fresh)
  })

  it('blocks the OFAC-listed address over MCP with a key, and with x402 in _meta', async () => {
    const keyed = new Client({ name: 'agent', version: '1.0.0' })
    await keyed.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'X-API-Key': liveKey } },
      }),
    )
    const byKey = await keyed.callTool({ name: 'agent_check', arguments: { wallet: OFAC_ETH } })
    expect(byKey.isError).toBeFalsy()
    expect(byKey.structuredContent).toMatchObject({ verdict: 'block', sanctions: { hit: true } })
    await keyed.close()

    const anonymous = new Client({ name: 'paying-agent', version: '1.0.0' })
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
    const unpaid = await anonymous.callTool({ name: 'agent_check', arguments: { wallet: OFAC_ETH } })
    expect(unpaid.isError).toBe(true)
    const required = paymentRequiredOf<PaymentRequired>(unpaid) as PaymentRequired
    const payload = await officialV2Client(world.setup, world.x402PayerKeys[1]!).createPaymentPayload(
      required,
    )
    const paid = await anonymous.callTool({
      name: 'agent_check',
      arguments: { wallet: OFAC_ETH },
      _meta: { 'x402/payment': payload },
    })
    expect(paid.isError).toBeFalsy()
    expect(paid.structuredContent).toMatchObject({ verdict: 'block' })
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true })
    await anonymous.close()
  })

  it('refuses sandbox keys (403) and bad input (422 naming the field)', async () => {
    expect((await check({ wallet: world.clean.wallet }, sandboxKey)).status).toBe(403)
    const bad = await check({ wallet: '0x1234', agent_id: 'abc', extra: true })
    expect(bad.status).toBe(422)
    const fields = (bad.body.detail as Body[]).map((item) => item.field)
    expect(fields).toEqual(expect.arrayContaining(['wallet', 'agent_id']))
  })

  it('GET /v1/wallet/balance answers a registered agent wallet and 404s an unregistered one (not charged)', async () => {
    const get = (address: string) =>
      fetch(`${server.baseUrl}/v1/wallet/balance?agent_id=${address}`, { headers: { 'x-api-key': liveKey } })
    const ok = await get(world.clean.wallet)
    expect(ok.status).toBe(200)
    const body = (await ok.json()) as Body
    expect(body).toMatchObject({
      agent_id: world.clean.wallet,
      chain: 'base-sepolia',
      currency: 'USDC',
      balance_usdc: 50,
      balance_raw: AGENT_WORLD_FUNDS.toString(),
      agent_ids: [world.clean.agentId.toString()],
    })
    expect(Math.abs(body.last_updated - Date.now() / 1000)).toBeLessThan(3600)
    const before = (await service.runtime.keys.get(liveKeyId))!.balanceMicros
    const missing = await get(world.unregistered)
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toContain('application/problem+json')
    expect(((await missing.json()) as Body).detail).toContain(
      'not registered in the ERC-8004 Identity Registry',
    )
    expect((await service.runtime.keys.get(liveKeyId))!.balanceMicros).toBe(before)
  })
})

describe('agent check with the RPC down', () => {
  let service: Service
  let liveKey: string

  beforeAll(async () => {
    service = await createTestService('pglite', {
      AGENT_CHAIN: 'base-sepolia',
      BASE_SEPOLIA_RPC_URL: 'http://127.0.0.1:9',
      SOURCE_TIMEOUT_MS: 1000,
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath(OFAC_CSV),
      // Configured but unreadable: their first read fails, so name screens are partial (not a 503).
      SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
      SANCTIONS_UN_SOURCE: sanctionsDataPath('un/no-such-file.xml'),
      SANCTIONS_STARTUP_REFRESH_DELAY_MS: 0,
    } as never)
    await service.runtime.deps.sanctionsLists?.idle()
    liveKey = (
      await service.runtime.keys.create({ email: 'down@example.test', tier: 'starter', balance: 5_000_000n })
    ).apiKey
  }, 60_000)
  afterAll(async () => {
    await service?.close()
  })

  it('reports balance, identity and reputation unavailable and never answers `proceed`', async () => {
    const response = await service.app.request('/v1/agent/check', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': liveKey },
      body: JSON.stringify({ wallet: '0x000000000000000000000000000000000000dEaD', agent_id: '1' }),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as Body
    expect(body.verdict).toBe('review')
    for (const part of ['balance', 'identity', 'reputation']) {
      expect(body[part].status).toBe('unavailable')
      expect(body[part].reason).toEqual(expect.any(String))
    }
    expect(body.balance.balance_usdc).toBeNull()
    expect(body.did_not_run).toEqual(expect.arrayContaining(['balance', 'identity', 'reputation', 'domain']))
    expect(body.wallet_risk.status).toBe('partial')
    expect(body.verdict_reasons.join(' ')).toContain('balance could not be read')
  })

  it('still blocks a sanctioned wallet with the chain down', async () => {
    const response = await service.app.request('/v1/agent/check', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': liveKey },
      body: JSON.stringify({ wallet: OFAC_ETH }),
    })
    expect(((await response.json()) as Body).verdict).toBe('block')
  })

  it('answers GET /v1/wallet/balance with 503, never a zero balance', async () => {
    const response = await service.app.request(`/v1/wallet/balance?agent_id=${OFAC_ETH}`, {
      headers: { 'x-api-key': liveKey },
    })
    expect(response.status).toBe(503)
  })

  it('flags a listed wallet_address in an entity check: EVM in any case, base58 exactly', async () => {
    const entityCheck = async (wallet_address: string, wallet_chain: string) => {
      const response = await service.app.request('/v1/entity/check', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': liveKey },
        // DE: no register is covered, so no register source is needed.
        body: JSON.stringify({
          entity_name: 'Example Trading BV',
          country: 'DE',
          wallet_address,
          wallet_chain,
        }),
      })
      expect(response.status).toBe(200)
      const body = (await response.json()) as Body
      // Only OFAC SDN is held: the name screen is partial, never clear; the wallet screen is complete.
      expect(body.sanctions_coverage).toMatchObject({ status: 'partial' })
      return {
        cluster: body.cluster,
        reasons: body.recommendation_reasons,
        factors: (body.risk_factors as Body[]).map((factor) => factor.factor),
      }
    }
    const evm = await entityCheck(OFAC_ETH.toLowerCase(), 'base')
    expect(evm.cluster).toBe('sanctions_flagged')
    expect(evm.factors).toContain('wallet_sanctioned')
    const btc = await entityCheck('12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h', 'btc')
    expect(btc.factors).toContain('wallet_sanctioned')
    const clean = await entityCheck('0x000000000000000000000000000000000000dEaD', 'eth')
    expect(clean.factors).toContain('wallet_sanctions_clear')
    expect(clean.factors).toContain('sanctions_partial')
    expect(clean.reasons).toEqual([
      expect.stringMatching(
        /^manual_review: the sanctions screen is partial: not checked: EU .*\(load_failed/,
      ),
    ])
    expect(clean.factors).not.toContain('sanctions_clear')
    expect(clean.cluster).not.toBe('sanctions_flagged')
  })
})
