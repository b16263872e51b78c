import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Service } from '../../server/compose.ts'
import { sanctionsDataPath, UN_FILES } from '../support/sanctions/shared-data.ts'
import { createTestService, TEST_ADMIN_KEY } from '../support/service.ts'

type Provider = {
  provider_id: string
  key: string
  endpoint_url: string
  supported_checks: string[]
  registered_at: string | null
  status: string
  status_reason?: string
  trust_level: string
}

describe('GET /v1/providers on a running service', () => {
  let service: Service
  let key: string

  beforeAll(async () => {
    service = await createTestService('pglite', {
      // Nothing listens on port 9: every VIES call fails at once with connection_refused.
      VIES_API_URL: 'http://127.0.0.1:9/vies',
      SANCTIONS_UN_SOURCE: sanctionsDataPath(UN_FILES['2026-02-27']),
      // Configured but unreadable: never loaded (down), and checks still run (partial coverage).
      SANCTIONS_OFAC_SOURCE: sanctionsDataPath('ofac/csv/no-such-folder/sdn.csv'),
      SANCTIONS_EU_SOURCE: sanctionsDataPath('eu/no-such-file.xml'),
      BASE_RPC_URL: 'https://base-mainnet.example/v2/SECRET_RPC_KEY',
    })
    await service.runtime.deps.sanctionsLists?.refresh({ force: true })
    key = (await service.runtime.keys.create({ email: 'p@example.com', tier: 'free' })).apiKey
  })
  afterAll(async () => {
    await service?.close()
  })

  const providers = async (apiKey: string) => {
    const response = await service.app.request('/v1/providers', { headers: { 'X-API-Key': apiKey } })
    expect(response.status).toBe(200)
    return (await response.json()) as Provider[]
  }

  it('answers the spec’s provider items as a bare array, with a key, and 401 without', async () => {
    expect((await service.app.request('/v1/providers')).status).toBe(401)
    const list = await providers(key)
    expect(Array.isArray(list)).toBe(true)
    expect(list.map((provider) => provider.key)).toEqual(
      expect.arrayContaining([
        'kvk',
        'kbo',
        'vies',
        'rdap',
        'dns',
        'tls',
        'ofac_sdn',
        'eu',
        'un',
        'base_rpc',
        'x402_facilitator',
      ]),
    )
    for (const provider of list) {
      expect(provider.provider_id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      )
      // registered_at: when this database first saw the provider configured; never: null.
      if (provider.status === 'not_configured') expect(provider.registered_at).toBeNull()
      else expect(Number.isNaN(Date.parse(provider.registered_at ?? ''))).toBe(false)
      expect(provider.supported_checks.length).toBeGreaterThan(0)
    }
    const byKey = Object.fromEntries(list.map((provider) => [provider.key, provider]))
    expect(byKey.kvk?.status).toBe('not_configured')
    expect(byKey.kbo).toMatchObject({
      status: 'down',
      status_reason: expect.stringContaining('dataset_not_loaded'),
    })
    // Loaded, but published 2026-02-27: past the UN list's 30-day threshold, so degraded.
    expect(byKey.un).toMatchObject({
      status: 'degraded',
      status_reason: expect.stringMatching(/^stale: .*30-day threshold/),
      endpoint_url: expect.stringMatching(/^file:[^/]+\.xml$/),
    })
    expect(byKey.eu).toMatchObject({ status: 'down', status_reason: expect.stringMatching(/^not_loaded: /) })
    expect(byKey.base_rpc).toMatchObject({ status: 'active', endpoint_url: 'https://base-mainnet.example' })
    expect(JSON.stringify(list)).not.toContain('SECRET_RPC_KEY')
    expect((await providers(key)).map((provider) => provider.provider_id)).toEqual(
      list.map((p) => p.provider_id),
    )
  })

  it('shows VIES down once its circuit breaker opened after failing calls, with the measured failures', async () => {
    expect((await providers(key)).find((provider) => provider.key === 'vies')?.status).toBe('active')
    for (let call = 0; call < 5; call++) {
      const response = await service.app.request('/v1/entity/check', {
        method: 'POST',
        headers: { 'X-API-Key': TEST_ADMIN_KEY, 'Content-Type': 'application/json' },
        // DE: no register is needed (NL would need KVK, not configured here: a 503).
        body: JSON.stringify({
          entity_name: 'Acme Trading B.V.',
          country: 'DE',
          vat_number: 'NL003028112B01',
        }),
      })
      expect(response.status).toBe(200)
    }
    const vies = (await providers(key)).find((provider) => provider.key === 'vies')
    expect(vies).toMatchObject({
      status: 'down',
      status_reason: expect.stringMatching(/^circuit_open: /),
      health: { circuit_state: 'open', recent_error_rate: 1, last_error: { reason: expect.any(String) } },
    })
  })

  it('is the MCP tool providers_list, answering {providers}', async () => {
    const result = await service.mcp.call({ name: 'providers_list', arguments: {} }, key)
    expect(result.isError).toBeFalsy()
    const content = result.structuredContent as { providers: Provider[] }
    expect(content.providers.length).toBe((await providers(key)).length)
  })
})
