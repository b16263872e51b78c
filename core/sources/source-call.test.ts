import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createCircuitBreaker } from './circuit-breaker.ts'
import { runSourceCall, toFailure } from './source-call.ts'
import { UpstreamFailure } from './source-result.ts'

const clock = createManualClock('2025-01-02T03:04:05.000Z')

describe('runSourceCall', () => {
  it('wraps data in an ok result stamped with the injected clock', async () => {
    const result = await runSourceCall({ source: 'x', clock, timeoutMs: 1000, call: async () => ({ a: 1 }) })
    expect(result).toMatchObject({
      source: 'x',
      status: 'ok',
      data: { a: 1 },
      fetched_at: '2025-01-02T03:04:05.000Z',
    })
    expect(result.latency_ms).toBeGreaterThanOrEqual(0)
  })

  it('turns an UpstreamFailure into unavailable with its reason and detail', async () => {
    const result = await runSourceCall({
      source: 'x',
      clock,
      timeoutMs: 1000,
      call: async () => {
        throw new UpstreamFailure('upstream_busy', 'IPD1003')
      },
    })
    expect(result).toMatchObject({ status: 'unavailable', reason: 'upstream_busy', detail: 'IPD1003' })
  })

  it('reports timeout and aborts the signal when the call never settles', async () => {
    let abortedWith: unknown
    const result = await runSourceCall({
      source: 'x',
      clock,
      timeoutMs: 20,
      call: (signal) =>
        new Promise(() => {
          signal.addEventListener('abort', () => {
            abortedWith = signal.reason
          })
        }),
    })
    expect(result).toMatchObject({ status: 'unavailable', reason: 'timeout' })
    expect(abortedWith).toBeInstanceOf(UpstreamFailure)
  })

  it('short-circuits with circuit_open without calling the upstream once the breaker is open', async () => {
    const breaker = createCircuitBreaker({ failureThreshold: 2, coolDownMs: 10_000, clock })
    let calls = 0
    const failing = async () => {
      calls++
      throw new UpstreamFailure('upstream_error', 'HTTP 500')
    }
    await runSourceCall({ source: 'x', clock, timeoutMs: 100, breaker, call: failing })
    await runSourceCall({ source: 'x', clock, timeoutMs: 100, breaker, call: failing })
    const third = await runSourceCall({ source: 'x', clock, timeoutMs: 100, breaker, call: failing })
    expect(third).toMatchObject({ status: 'unavailable', reason: 'circuit_open' })
    expect(calls).toBe(2)
  })
})

describe('toFailure', () => {
  it('reads connection refused from the cause chain of a fetch error', () => {
    const error = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    })
    expect(toFailure(error).reason).toBe('connection_refused')
  })

  it('maps a connection reset to network_error', () => {
    expect(toFailure(Object.assign(new Error('x'), { code: 'ECONNRESET' })).reason).toBe('network_error')
  })
})
