import type { SourceResult } from './source-result.ts'

type Calls = Record<string, () => Promise<SourceResult<unknown>>>
type FanOutResults<C extends Calls> = { [K in keyof C]: Awaited<ReturnType<C[K]>> }

/**
 * Starts every source call at once and waits for all of them (Promise.allSettled semantics),
 * so an entity check costs the slowest source, not the sum (DESIGN "Upstream sources": parallel
 * fan-out). A call that throws despite the adapters' contract (a bug) becomes an `unavailable`
 * result named after its key with reason `internal_error`; it never sinks the other results.
 */
export async function fanOut<C extends Calls>(
  calls: C,
  now: () => Date = () => new Date(),
): Promise<FanOutResults<C>> {
  const keys = Object.keys(calls) as (keyof C & string)[]
  const settled = await Promise.allSettled(keys.map((key) => Promise.resolve().then(() => calls[key]!())))
  const out = {} as Record<string, SourceResult<unknown>>
  keys.forEach((key, index) => {
    const outcome = settled[index]!
    out[key] =
      outcome.status === 'fulfilled'
        ? outcome.value
        : {
            source: key,
            status: 'unavailable',
            reason: 'internal_error',
            detail: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason),
            fetched_at: now().toISOString(),
            latency_ms: 0,
          }
  })
  return out as FanOutResults<C>
}
