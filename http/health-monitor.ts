import type { ListHealth } from '../core/sanctions/list-health.ts'

/** What /health reports about the database (as last checked) and the lists (as they are now). */
export interface HealthSnapshot {
  reachable: boolean
  lists: ListHealth[]
  /** When this state was checked (monotonic milliseconds, performance.now()). */
  checkedAt: number
}

/** The parts a health check reads. */
export interface HealthSources {
  database: { ping(): Promise<boolean> }
  lists?: () => ListHealth[]
}

export interface HealthMonitor {
  /** The last checked state; checked now when there is none yet or it is older than it may be. */
  current(): Promise<HealthSnapshot>
  /** Checks now and then every `intervalMs` in the background, until stop. */
  start(): void
  stop(): void
}

/** How often the background check runs by default: /health is never more than about this old. */
export const HEALTH_CHECK_INTERVAL_MS = 1000

/**
 * /health answered from state checked in the background instead of a database query per request
 * (a load balancer or a monitor polling /health costs the database one ping a second, however
 * often it asks). The answer says how old its state is. A ping that does not answer within
 * `pingTimeoutMs` counts as unreachable, so a hung database shows within interval + timeout.
 * Not started (an app built without a service), each state is used for at most `intervalMs`.
 */
export function createHealthMonitor(
  sources: HealthSources,
  options: { intervalMs?: number; pingTimeoutMs?: number } = {},
): HealthMonitor {
  const intervalMs = options.intervalMs ?? HEALTH_CHECK_INTERVAL_MS
  const pingTimeoutMs = options.pingTimeoutMs ?? 2000
  /** The last database ping; the lists are read on each answer, never kept. */
  let snapshot: Omit<HealthSnapshot, 'lists'> | undefined
  let checking: Promise<Omit<HealthSnapshot, 'lists'>> | undefined
  let timer: NodeJS.Timeout | undefined
  /** While the timer runs, a state stays valid through one slow check; else for one interval. */
  const maxAgeMs = () => (timer ? 2 * intervalMs + pingTimeoutMs : intervalMs)

  async function ping(): Promise<boolean> {
    let timeout: NodeJS.Timeout | undefined
    const late = new Promise<boolean>((resolve) => {
      timeout = setTimeout(() => resolve(false), pingTimeoutMs)
    })
    try {
      return await Promise.race([sources.database.ping().catch(() => false), late])
    } finally {
      clearTimeout(timeout)
    }
  }

  function check(): Promise<Omit<HealthSnapshot, 'lists'>> {
    checking ??= (async () => {
      const checkedAt = performance.now()
      const reachable = await ping()
      const next = { reachable, checkedAt }
      snapshot = next
      return next
    })().finally(() => {
      checking = undefined
    })
    return checking
  }

  return {
    async current() {
      const state =
        snapshot && performance.now() - snapshot.checkedAt <= maxAgeMs() ? snapshot : await check()
      // The lists' state is in memory and costs nothing to read: always the current one, so /health
      // never says "loading" about a list that has loaded (and agrees with /v1/data/inventory).
      return { ...state, lists: sources.lists?.() ?? [] }
    },
    start() {
      if (timer) return
      timer = setInterval(() => void check(), intervalMs)
      timer.unref()
      void check()
    },
    stop() {
      clearInterval(timer)
      timer = undefined
    },
  }
}
