import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createCircuitBreaker } from '../sources/circuit-breaker.ts'
import { createProviderDirectory, publicEndpoint, statusOfCalls, uuidV5 } from './provider-directory.ts'
import { PROVIDERS } from './providers.ts'

describe('provider directory', () => {
  it('derives UUID v5 ids (RFC 9562 test vector) that never change', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    )
    const ids = PROVIDERS.map((provider) => uuidV5(provider.key))
    expect(new Set(ids).size).toBe(PROVIDERS.length)
    expect(uuidV5('kvk')).toBe(uuidV5('kvk'))
  })

  it('reports each provider from its measured calls: active, degraded, down, not_configured', async () => {
    const clock = createManualClock()
    const breaker = createCircuitBreaker({ clock, failureThreshold: 2, coolDownMs: 30_000 })
    const directory = createProviderDirectory(PROVIDERS, {
      vies: { endpointUrl: 'https://vies.example', status: () => statusOfCalls(breaker.health()) },
    })
    const vies = async () => (await directory.list()).find((item) => item.key === 'vies')
    // No call yet: configured and nothing against it.
    expect(await vies()).toMatchObject({
      status: 'active',
      endpoint_url: 'https://vies.example',
      trust_level: 'verified',
      health: { circuit_state: 'closed', recent_calls: 0, recent_error_rate: null, last_error: null },
    })
    breaker.recordSuccess()
    clock.advance(1_000)
    breaker.recordFailure('timeout')
    // Its latest call failed (50% of the recent calls): degraded, with the reason and time.
    expect(await vies()).toMatchObject({
      status: 'degraded',
      health: { recent_calls: 2, recent_error_rate: 0.5, last_error: { reason: 'timeout' } },
    })
    expect((await vies())?.status_reason).toContain('timeout')
    breaker.recordFailure('timeout')
    expect(await vies()).toMatchObject({ status: 'down', health: { circuit_state: 'open' } })
    expect((await vies())?.status_reason).toMatch(/^circuit_open/)
    clock.advance(30_000)
    expect(await vies()).toMatchObject({ status: 'degraded', health: { circuit_state: 'half_open' } })
    expect((await vies())?.status_reason).toMatch(/^circuit_half_open/)
    expect((await directory.list()).find((item) => item.key === 'kvk')?.status).toBe('not_configured')
  })

  it('publishes endpoints without credentials or query strings', () => {
    expect(publicEndpoint('https://user:pw@rpc.example/v2/SECRETKEY?x=1', 'origin')).toBe(
      'https://rpc.example',
    )
    expect(publicEndpoint('https://api.kvk.nl/test/?apikey=1')).toBe('https://api.kvk.nl/test')
  })
})
