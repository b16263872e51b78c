import type { ServiceErrorCode } from '../errors.ts'
import type { PaidWith } from '../payments/charge.ts'
import { createBatcher } from '../store/batcher.ts'
import type { Db } from '../store/database.ts'
import { usageEvents } from '../store/schema.ts'

/** How a call ended: `ok`, `payment_required` (402), or the failure's ServiceError code. */
export type UsageOutcome = 'ok' | 'payment_required' | ServiceErrorCode

export interface UsageEvent {
  keyId: string | null
  operation: string
  outcome: UsageOutcome
  paidWith: PaidWith
  costMicros: bigint
  latencyMs: number
}

export interface UsageRecorder {
  record(event: UsageEvent): Promise<void>
}

/**
 * Writes one usage row per call; a failure to record never fails the call itself. Rows of
 * concurrent calls go out in one multi-row insert (core/store/batcher.ts); a failed batch is
 * retried row by row so one bad row costs only itself.
 */
export function createUsageRecorder(db: Db, onError: (error: unknown) => void = () => {}): UsageRecorder {
  const insert = createBatcher<UsageEvent, void>(async (events) => {
    try {
      await db.insert(usageEvents).values([...events])
    } catch (error) {
      if (events.length === 1) onError(error)
      else {
        for (const event of events) {
          try {
            await db.insert(usageEvents).values(event)
          } catch (rowError) {
            onError(rowError)
          }
        }
      }
    }
    return events.map(() => undefined)
  })
  return { record: (event) => insert(event) }
}
