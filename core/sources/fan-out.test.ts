import { describe, expect, it } from 'vitest'
import { fanOut } from './fan-out.ts'
import type { SourceResult } from './source-result.ts'

const ok = (source: string, data: number): SourceResult<number> => ({
  source,
  status: 'ok',
  data,
  fetched_at: '2025-01-01T00:00:00.000Z',
  latency_ms: 0,
})

describe('fanOut', () => {
  it('returns every result under its key', async () => {
    const results = await fanOut({ a: async () => ok('a', 1), b: async () => ok('b', 2) })
    expect(results.a).toMatchObject({ status: 'ok', data: 1 })
    expect(results.b).toMatchObject({ status: 'ok', data: 2 })
  })

  it('contains a call that throws as internal_error without sinking the others', async () => {
    const results = await fanOut({
      good: async () => ok('good', 1),
      broken: async () => {
        throw new Error('bug')
      },
      brokenSync: () => {
        throw new Error('sync bug')
      },
    })
    expect(results.good.status).toBe('ok')
    expect(results.broken).toMatchObject({
      source: 'broken',
      status: 'unavailable',
      reason: 'internal_error',
      detail: 'bug',
    })
    expect(results.brokenSync).toMatchObject({ status: 'unavailable', reason: 'internal_error' })
  })

  it('starts all calls before any of them finishes', async () => {
    let started = 0
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
      // a sequential fan-out never reaches three started calls: give up instead of hanging
      setTimeout(resolve, 1000).unref()
    })
    const call = (name: string) => async () => {
      started++
      if (started === 3) release()
      await gate
      return ok(name, started)
    }
    const results = await fanOut({ a: call('a'), b: call('b'), c: call('c') })
    expect(Object.values(results).map((r) => (r.status === 'ok' ? r.data : -1))).toEqual([3, 3, 3])
  })
})
