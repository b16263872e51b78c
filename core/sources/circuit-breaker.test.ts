import { describe, expect, it } from 'vitest'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { createCircuitBreaker } from './circuit-breaker.ts'

describe('createCircuitBreaker', () => {
  it('stays closed below the failure threshold and resets the count on success', () => {
    const breaker = createCircuitBreaker({
      failureThreshold: 3,
      coolDownMs: 1000,
      clock: createManualClock(),
    })
    breaker.recordFailure()
    breaker.recordFailure()
    breaker.recordSuccess()
    breaker.recordFailure()
    breaker.recordFailure()
    expect(breaker.state()).toBe('closed')
    expect(breaker.tryAcquire()).toBe(true)
  })

  it('opens after N consecutive failures and refuses calls during the cool-down', () => {
    const clock = createManualClock()
    const breaker = createCircuitBreaker({ failureThreshold: 3, coolDownMs: 1000, clock })
    for (let i = 0; i < 3; i++) breaker.recordFailure()
    expect(breaker.state()).toBe('open')
    expect(breaker.tryAcquire()).toBe(false)
    clock.advance(999)
    expect(breaker.tryAcquire()).toBe(false)
  })

  it('turns half-open after the cool-down and admits exactly one trial call', () => {
    const clock = createManualClock()
    const breaker = createCircuitBreaker({ failureThreshold: 1, coolDownMs: 1000, clock })
    breaker.recordFailure()
    clock.advance(1000)
    expect(breaker.state()).toBe('half_open')
    expect(breaker.tryAcquire()).toBe(true)
    expect(breaker.tryAcquire()).toBe(false)
  })

  it('closes when the half-open trial succeeds', () => {
    const clock = createManualClock()
    const breaker = createCircuitBreaker({ failureThreshold: 1, coolDownMs: 1000, clock })
    breaker.recordFailure()
    clock.advance(1000)
    breaker.tryAcquire()
    breaker.recordSuccess()
    expect(breaker.state()).toBe('closed')
    expect(breaker.tryAcquire()).toBe(true)
  })

  it('reopens for a fresh cool-down when the half-open trial fails', () => {
    const clock = createManualClock()
    const breaker = createCircuitBreaker({ failureThreshold: 2, coolDownMs: 1000, clock })
    breaker.recordFailure()
    breaker.recordFailure()
    clock.advance(1000)
    expect(breaker.tryAcquire()).toBe(true)
    breaker.recordFailure()
    expect(breaker.state()).toBe('open')
    clock.advance(500)
    expect(breaker.tryAcquire()).toBe(false)
    clock.advance(500)
    expect(breaker.state()).toBe('half_open')
  })

  it('frees the half-open trial slot on release without closing the circuit', () => {
    const clock = createManualClock()
    const breaker = createCircuitBreaker({ failureThreshold: 1, coolDownMs: 1000, clock })
    breaker.recordFailure()
    clock.advance(1000)
    expect(breaker.tryAcquire()).toBe(true)
    breaker.release()
    expect(breaker.state()).toBe('half_open')
    expect(breaker.tryAcquire()).toBe(true)
  })

  it('rejects a threshold below one', () => {
    expect(() => createCircuitBreaker({ failureThreshold: 0, clock: createManualClock() })).toThrow(
      RangeError,
    )
  })
})
