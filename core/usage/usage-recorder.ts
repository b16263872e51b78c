import { type SQL, sql } from 'drizzle-orm'
import type { ServiceErrorCode } from '../errors.ts'
import type { PaidWith } from '../payments/charge.ts'
import { type Db, executePrepared } from '../store/database.ts'
import { type GroupCommit, groupCommitOf, StatementParams } from '../store/group-commit.ts'

/**
 * How a call ended: `ok` (answered and delivered), `undelivered` (answered, but the answer did not
 * reach the caller whole: the connection closed first; a key debit is then released, so the row
 * costs nothing, while an x402 payment settled before the answer was sent stays paid),
 * `payment_required` (402), or the failure's ServiceError code.
 */
export type UsageOutcome = 'ok' | 'undelivered' | 'payment_required' | ServiceErrorCode

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
  /**
   * An answer recorded `ok` (`event`, as it was recorded) did not reach the caller whole: one such
   * row becomes `undelivered` with `costMicros` (0 for a released key debit; the settled amount for
   * x402, paid before the answer was sent), and the hourly rollup moves with it, in one statement.
   */
  undelivered?(event: UsageEvent, costMicros: bigint): Promise<void>
}

/**
 * The usage rows of a batch of calls and the hourly rollup of the keyed ones
 * (core/store/tables/usage.ts) from the same rows, as two CTEs named from `prefix`, so reports
 * never disagree with the log. Rollup rows are upserted in primary-key order, so two processes'
 * batches lock them in the same order. Each column is bound as one array (the same text for any
 * batch: a prepared statement).
 */
function recordCtes(events: readonly UsageEvent[], prefix: string, params: StatementParams): string[] {
  const column = <T>(of: (event: UsageEvent) => T) => params.add(events.map(of))
  const inserted = `${prefix}inserted`
  return [
    `${inserted} as (
      insert into usage_events (key_id, operation, outcome, paid_with, cost_micros, latency_ms)
      select * from unnest(${column((event) => event.keyId)}::text[], ${column((event) => event.operation)}::text[],
        ${column((event) => event.outcome)}::text[], ${column((event) => event.paidWith)}::text[],
        ${column((event) => event.costMicros.toString())}::bigint[], ${column((event) => event.latencyMs)}::int[])
      returning key_id, operation, outcome, cost_micros, latency_ms, created_at
    )`,
    `${prefix}rolled_up as (
    insert into usage_rollups as r (key_id, hour, operation, outcome, calls, cost_micros, latency_ms_sum)
    select key_id, date_trunc('hour', created_at, 'UTC'), operation, outcome,
      count(*), sum(cost_micros), sum(latency_ms)
    from ${inserted}
    where key_id is not null
    group by 1, 2, 3, 4
    order by 1, 2, 3, 4
    on conflict (key_id, hour, operation, outcome) do update set
      calls = r.calls + excluded.calls,
      cost_micros = r.cost_micros + excluded.cost_micros,
      latency_ms_sum = r.latency_ms_sum + excluded.latency_ms_sum
    )`,
  ]
}

/** One statement for a batch of calls: its usage rows and their rollup. */
function recordStatement(db: Db, events: readonly UsageEvent[]): Promise<unknown> {
  const params = new StatementParams()
  return executePrepared(db, `with ${recordCtes(events, '', params).join(', ')} select 1`, params.values)
}

/**
 * Writes one usage row per call; a failure to record never fails the call itself. Rows of
 * concurrent calls go out in one multi-row insert, in the statement the other writes of those
 * calls share when `group` is given (core/store/group-commit.ts); a batch that fails alone is
 * retried row by row so one bad row costs only itself.
 */
export function createUsageRecorder(
  db: Db,
  onError: (error: unknown) => void = () => {},
  group: GroupCommit = groupCommitOf(db),
): UsageRecorder {
  const alone = async (events: readonly UsageEvent[]): Promise<undefined[]> => {
    try {
      await recordStatement(db, events)
    } catch (error) {
      if (events.length === 1) onError(error)
      else {
        for (const event of events) {
          try {
            await recordStatement(db, [event])
          } catch (rowError) {
            onError(rowError)
          }
        }
      }
    }
    return events.map(() => undefined)
  }
  const insert = group.part<UsageEvent, undefined>({
    statement: async (events, prefix, params) => ({
      ctes: recordCtes(events, prefix, params),
      result: 'select null::text as r where false',
    }),
    results: async (_values, events) => events.map(() => undefined),
    alone,
  })
  return {
    record: async (event) => {
      try {
        await insert(event)
      } catch (error) {
        onError(error)
      }
    },
    async undelivered(event, costMicros) {
      try {
        await db.execute(undeliveredStatement(event, costMicros))
      } catch (error) {
        onError(error)
      }
    },
  }
}

/**
 * Moves one `ok` row of this call to `undelivered`. The row is found by what was recorded (key,
 * operation, payer kind, cost, latency; the newest first): rows that agree on all of these are
 * interchangeable for every report, so moving any one of them gives the same figures. The rollup
 * row of that row's hour loses the call and the `undelivered` one gains it.
 */
function undeliveredStatement(event: UsageEvent, costMicros: bigint): SQL {
  return sql`with target as (
      select id from usage_events
      where key_id is not distinct from ${event.keyId} and operation = ${event.operation}
        and outcome = 'ok' and paid_with = ${event.paidWith} and cost_micros = ${event.costMicros}
        and latency_ms = ${event.latencyMs}
      order by id desc limit 1
      for update
    ), moved as (
      update usage_events e set outcome = 'undelivered', cost_micros = ${costMicros}
      from target where e.id = target.id
      returning e.key_id, e.created_at, e.latency_ms
    ), removed as (
      update usage_rollups r set calls = r.calls - 1, cost_micros = r.cost_micros - ${event.costMicros},
        latency_ms_sum = r.latency_ms_sum - moved.latency_ms
      from moved
      where r.key_id = moved.key_id and r.hour = date_trunc('hour', moved.created_at, 'UTC')
        and r.operation = ${event.operation} and r.outcome = 'ok'
      returning r.key_id
    )
    insert into usage_rollups as r (key_id, hour, operation, outcome, calls, cost_micros, latency_ms_sum)
    select key_id, date_trunc('hour', created_at, 'UTC'), ${event.operation}, 'undelivered', 1,
      ${costMicros}, latency_ms
    from moved
    where key_id is not null
    on conflict (key_id, hour, operation, outcome) do update set
      calls = r.calls + excluded.calls,
      cost_micros = r.cost_micros + excluded.cost_micros,
      latency_ms_sum = r.latency_ms_sum + excluded.latency_ms_sum
`
}
