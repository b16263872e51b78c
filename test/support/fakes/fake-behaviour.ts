/**
 * How a fake upstream answers. Shared by every fake in this folder (test-only code).
 * - `normal`: answers from its data, in the upstream's real format.
 * - `error`: answers with the real error body named by `error` (each fake lists its own).
 * - `hang`: accepts the request and never answers.
 * - `reset`: accepts and drops the connection (HTTP/TLS) or answers nothing (DNS).
 * `delayMs` delays every answer (normal or error), for timeout and fan-out tests.
 * Refusing connections is `refuse()` on the fake (it stops listening on its port).
 */
export type FakeMode = 'normal' | 'error' | 'hang' | 'reset'

export interface FakeBehaviour {
  mode: FakeMode
  delayMs: number
  /** Name of the error to answer with in `error` mode. */
  error?: string
}

export const NORMAL: FakeBehaviour = { mode: 'normal', delayMs: 0 }

/**
 * Counts how many fakes are busy at once (a fake is busy while at least one of its requests is
 * unanswered). Shared across fakes, it proves a fan-out is parallel without timing anything:
 * a sequential caller never has more than one fake busy.
 */
export interface BusyGauge {
  enter(fake: string): void
  leave(fake: string): void
  readonly busy: number
  readonly maxBusy: number
  /** Resolves once `count` fakes are busy together, or after `timeoutMs` (whichever is first). */
  waitForBusy(count: number, timeoutMs: number): Promise<void>
  reset(): void
}

export function createBusyGauge(): BusyGauge {
  const pending = new Map<string, number>()
  let maxBusy = 0
  let waiters: { count: number; resolve: () => void }[] = []
  const busy = () => [...pending.values()].filter((n) => n > 0).length
  return {
    enter(fake) {
      pending.set(fake, (pending.get(fake) ?? 0) + 1)
      const now = busy()
      maxBusy = Math.max(maxBusy, now)
      waiters = waiters.filter((w) => {
        if (now >= w.count) w.resolve()
        return now < w.count
      })
    },
    leave(fake) {
      pending.set(fake, Math.max(0, (pending.get(fake) ?? 0) - 1))
    },
    get busy() {
      return busy()
    },
    get maxBusy() {
      return maxBusy
    },
    waitForBusy(count, timeoutMs) {
      if (busy() >= count) return Promise.resolve()
      return new Promise((resolve) => {
        waiters.push({ count, resolve })
        setTimeout(resolve, timeoutMs).unref()
      })
    },
    reset() {
      pending.clear()
      maxBusy = 0
    },
  }
}

/** A sleep that never keeps the process alive on its own. */
export function sleep(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}

export interface FakeCommonOptions {
  /** Initial behaviour (default normal, no delay). */
  behaviour?: Partial<FakeBehaviour>
  gauge?: BusyGauge
  /** Awaited before every answer; lets a test hold answers until a condition holds. */
  hold?: () => Promise<void>
}
