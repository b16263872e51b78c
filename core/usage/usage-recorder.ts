import type { PaidWith } from '../operations/charging.ts'
import type { Db } from '../store/database.ts'
import { usageEvents } from '../store/schema.ts'

export interface UsageEvent {
  keyId: string | null
  operation: string
  httpStatus: number
  paidWith: PaidWith
  costMicros: bigint
  latencyMs: number
}

export interface UsageRecorder {
  record(event: UsageEvent): Promise<void>
}

/** Writes one usage row per call; a failure to record never fails the call itself. */
export function createUsageRecorder(db: Db, onError: (error: unknown) => void = () => {}): UsageRecorder {
  return {
    async record(event) {
      try {
        await db.insert(usageEvents).values(event)
      } catch (error) {
        onError(error)
      }
    },
  }
}
