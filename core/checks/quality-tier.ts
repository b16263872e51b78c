import { randomUUID } from 'node:crypto'
import type { Caller, Clock, Quality } from '../context.ts'
import { type CheckStore, ownerOf } from './check-store.ts'

/** How old a stored result may be for the cached tier to answer from it (docs/company-checks.md, "Quality tiers"). */
export const CACHED_MAX_AGE_MS = 24 * 60 * 60 * 1000

/** Fields every stored company-check answer carries. */
export interface CheckEnvelope {
  check_id: string
  entity_hash: string
  /** The tier that produced this answer: cached, fresh or enhanced. */
  quality: 'cached' | 'fresh' | 'enhanced'
  /** When the sources were asked (for a cached answer: when the stored check ran). */
  checked_at: string
  /** Present on a cached answer: the stored check it came from. */
  cached_from?: { check_id: string; quality: string; checked_at: string }
}

/** What a tiered check needs from the operation that runs it (an OperationContext provides it). */
export interface TierContext {
  caller: Caller
  quality: Quality
  clock: Clock
  deps: { checks?: CheckStore }
  /** Keeps the stored check only once the call is paid for (spec: nothing unpaid is stored). */
  afterPayment(write: () => Promise<void>): void
}

export interface TieredCheck<R extends Record<string, unknown>> {
  operation: string
  entityHash: string
  inputHash: string
  /** What is stored as the check's input. */
  input: unknown
  /** Runs the check at the fresh or enhanced tier. */
  run: (tier: 'fresh' | 'enhanced') => Promise<R>
  /** The trust score to index in the history, if the result has one. */
  trustScoreOf?: (result: R) => number | null
}

/**
 * The quality tiers of spec "X-Response-Quality" for company checks: `cached` answers from the
 * caller's own stored result of the same inputs when it is younger than CACHED_MAX_AGE_MS and
 * otherwise runs fresh (saying so in `quality`); `fresh` asks every source; `enhanced` asks
 * for the extra work the operation documents. Every paid run is stored for the caller (spec:
 * every entity check is stored per key) so its history and later cached answers can use it; a run
 * whose payment did not settle is never stored.
 */
export async function runTiered<R extends Record<string, unknown>>(
  ctx: TierContext,
  check: TieredCheck<R>,
): Promise<R & CheckEnvelope> {
  const store = ctx.deps.checks
  const owner = ownerOf(ctx.caller)
  const now = ctx.clock.now()
  if (ctx.quality === 'cached' && store && owner) {
    const since = new Date(now.getTime() - CACHED_MAX_AGE_MS)
    const stored = await store.findRecent(owner.owner, check.operation, check.inputHash, since)
    if (stored) {
      const result = stored.result as R & CheckEnvelope
      return {
        ...result,
        quality: 'cached',
        cached_from: {
          check_id: stored.id,
          quality: stored.quality,
          checked_at: stored.createdAt.toISOString(),
        },
      }
    }
  }
  const tier = ctx.quality === 'enhanced' ? 'enhanced' : 'fresh'
  const body = await check.run(tier)
  const envelope: CheckEnvelope = {
    check_id: randomUUID(),
    entity_hash: check.entityHash,
    quality: tier,
    checked_at: now.toISOString(),
  }
  const result = { ...body, ...envelope }
  if (store && owner) {
    const { owner: ownerId, keyId } = owner
    ctx.afterPayment(() =>
      store.save({
        id: envelope.check_id,
        owner: ownerId,
        keyId,
        operation: check.operation,
        entityHash: check.entityHash,
        inputHash: check.inputHash,
        quality: tier,
        input: check.input,
        result,
        trustScore: check.trustScoreOf?.(body) ?? null,
        createdAt: now,
      }),
    )
  }
  return result
}
