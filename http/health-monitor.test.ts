import { describe, expect, it } from 'vitest'
import { createHealthMonitor } from './health-monitor.ts'

describe('the health monitor', () => {
  it('answers from its last check until it is older than an interval, then checks again (not started)', async () => {
    let pings = 0
    let up = true
    const monitor = createHealthMonitor(
      {
        database: {
          ping: async () => {
            pings++
            return up
          },
        },
      },
      { intervalMs: 200 },
    )
    const first = await monitor.current()
    expect(first.reachable).toBe(true)
    expect((await monitor.current()).checkedAt).toBe(first.checkedAt)
    expect(pings).toBe(1)
    up = false
    let state = first
    while (state.reachable) state = await monitor.current()
    expect(state.checkedAt - first.checkedAt).toBeGreaterThanOrEqual(200)
    expect(pings).toBe(2)
  })

  it('reads the lists as they are now, whatever the age of the last ping', async () => {
    let status: 'loading' | 'loaded' = 'loading'
    const monitor = createHealthMonitor(
      {
        database: { ping: async () => true },
        lists: () => [{ list_key: 'un', max_age_days: 30, status } as never],
      },
      { intervalMs: 60_000 },
    )
    const first = await monitor.current()
    expect(first.lists).toMatchObject([{ status: 'loading' }])
    status = 'loaded'
    const next = await monitor.current()
    expect(next.checkedAt).toBe(first.checkedAt)
    expect(next.lists).toMatchObject([{ status: 'loaded' }])
  })

  it('counts a ping that hangs as unreachable after the timeout', async () => {
    const monitor = createHealthMonitor(
      { database: { ping: () => new Promise<boolean>(() => {}) } },
      { pingTimeoutMs: 50 },
    )
    expect((await monitor.current()).reachable).toBe(false)
  })

  it('keeps its state current from the background once started, one check at a time', async () => {
    let pings = 0
    const monitor = createHealthMonitor(
      {
        database: {
          ping: async () => {
            pings++
            return true
          },
        },
        lists: () => [],
      },
      { intervalMs: 20 },
    )
    monitor.start()
    try {
      const first = await monitor.current()
      let state = first
      while (state.checkedAt === first.checkedAt) {
        await new Promise((resolve) => setTimeout(resolve, 5))
        state = await monitor.current()
      }
      expect(state.checkedAt).toBeGreaterThan(first.checkedAt)
      expect(pings).toBeGreaterThanOrEqual(2)
    } finally {
      monitor.stop()
    }
  })
})
