import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createCircuitBreaker } from '../sources/circuit-breaker.ts'
import { createProviderDirectory, publicEndpoint, statusOfCircuit, uuidV5 } from './provider-directory.ts'
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

  it('reports each provider from its circuit breaker: active, degraded (half-open), unavailable (open)', async () => {
    const clock = createManualClock()
    const breaker = createCircuitBreaker({ clock, failureThreshold: 2, coolDownMs: 30_000 })
    const directory = createProviderDirectory(PROVIDERS, {
      vies: { endpointUrl: 'https://vies.example', status: () => statusOfCircuit(breaker.state()) },
    })
    const vies = async () => (await directory.list()).find((item) => item.key === 'vies')
    expect(await vies()).toMatchObject({
      status: 'active',
      endpoint_url: 'https://vies.example',
      trust_level: 'verified',
    })
    breaker.recordFailure()
    breaker.recordFailure()
    expect(await vies()).toMatchObject({ status: 'unavailable', status_reason: 'circuit_open' })
    clock.advance(30_000)
    expect(await vies()).toMatchObject({ status: 'degraded', status_reason: 'circuit_half_open' })
    expect((await directory.list()).find((item) => item.key === 'kvk')?.status).toBe('not_configured')
  })

  it('publishes endpoints without credentials or query strings', () => {
    expect(publicEndpoint('https://user:pw@rpc.example/v2/SECRETKEY?x=1', 'origin')).toBe(
      'https://rpc.example',
    )
    expect(publicEndpoint('https://api.kvk.nl/test/?apikey=1')).toBe('https://api.kvk.nl/test')
  })
})
