import { createBatcher } from './batcher.ts'
import { type Db, executePrepared, isDatabaseUnavailable } from './database.ts'

/**
 * Whether the database refused the statement (it answered with an SQLSTATE: a constraint, a
 * deadlock, a serialization failure), so none of it was written and each part may be written
 * again alone. A lost connection (its outcome in doubt) or any other failure is not.
 */
export function refusedByDatabase(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return false
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/**
 * The parameters of one raw statement as it is built: `add` binds a value and returns its `$n`
 * placeholder. A part that binds each column of its batch as one array (`unnest`, `= any`) writes
 * the same text for any batch size, so the statement is prepared once per connection.
 */
export class StatementParams {
  readonly values: unknown[] = []

  add(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
}

/**
 * One kind of write that can share a statement with others (a usage row, a key debit's capture,
 * an audit row): how a batch of its items is written inside a shared statement, and alone.
 */
export interface GroupPart<I, O> {
  /**
   * The batch as data-modifying common table expressions (`name as (...)`, every name starting
   * with `prefix`, values bound through `params`), and a query over them whose rows carry one
   * `text` column `r`: what `results` reads. The CTEs of one statement see the same snapshot: a
   * part never reads what another writes. It may read first (an audit chain's head this process
   * does not know yet).
   */
  statement(
    items: readonly I[],
    prefix: string,
    params: StatementParams,
  ): Promise<{ ctes: string[]; result: string }>
  /**
   * Each item's result from the `r` values the query returned, in the items' order. It may write
   * more on its own (an audit chain another process moved on is appended again alone).
   */
  results(values: readonly unknown[], items: readonly I[]): Promise<readonly O[]>
  /** The batch written alone (its own statements): when it is the only part, or the shared statement failed. */
  alone(items: readonly I[]): Promise<readonly O[]>
}

/** Queues one item of a part; resolves with its result once its statement committed. */
export type GroupWrite<I, O> = (item: I) => Promise<O>

export interface GroupCommit {
  /** A writer for one kind of item; its items go out with those of every other part. */
  part<I, O>(part: GroupPart<I, O>): GroupWrite<I, O>
}

interface Queued {
  part: GroupPart<unknown, unknown>
  /** The part's place among the parts (the order they were created in). */
  order: number
  item: unknown
}

/**
 * Group commit across kinds of writes (core/store/batcher.ts batches one kind): the writes queued
 * while a statement is in flight go out together in ONE statement of several data-modifying CTEs,
 * so the usage rows, debit captures and audit rows of concurrent calls cost one round trip (and on
 * PGlite one statement's fixed cost, most of a small write's) instead of one each. One statement is
 * one transaction: its writes commit together or not at all. When the database refused the shared
 * statement (a constraint, a deadlock: nothing was written), each part is written again alone, so
 * one part's failure never costs another its write; any other failure (unreachable, outcome in
 * doubt) fails every item, as it would have failed each part alone. A batch of one part is that
 * part's own statement. The parts of a shared statement go in the order they were created, so its
 * text is one of a few (one per set of parts present) and runs prepared (executePrepared).
 */
export function createGroupCommit(db: Db, options: { maxBatch?: number } = {}): GroupCommit {
  async function run(batch: readonly Queued[]): Promise<readonly unknown[]> {
    const parts = new Map<GroupPart<unknown, unknown>, { order: number; positions: number[] }>()
    batch.forEach((queued, index) => {
      const entry = parts.get(queued.part)
      if (entry) entry.positions.push(index)
      else parts.set(queued.part, { order: queued.order, positions: [index] })
    })
    const results: unknown[] = new Array(batch.length)
    const settled: PromiseSettledResult<readonly unknown[]>[] = []
    const groups = [...parts]
      .sort(([, a], [, b]) => a.order - b.order)
      .map(([part, { positions }]) => ({
        part,
        positions,
        items: positions.map((position) => batch[position]!.item),
      }))
    if (groups.length === 1) {
      const [{ part, items }] = groups as [(typeof groups)[number]]
      settled.push(await part.alone(items).then(fulfilled, rejected))
    } else {
      let values: unknown[][] | undefined
      let failure: unknown
      try {
        const params = new StatementParams()
        const built = await Promise.all(
          groups.map((group, index) => group.part.statement(group.items, `g${index}_`, params)),
        )
        const ctes = built.flatMap((statement) => statement.ctes)
        const selects = built.map(
          (statement, index) => `select ${index}::int as part, r from (${statement.result}) as p${index}`,
        )
        const text = `${ctes.length > 0 ? `with ${ctes.join(', ')} ` : ''}${selects.join(' union all ')}`
        const rows = (await executePrepared(db, text, params.values)) as { part: unknown; r: unknown }[]
        values = groups.map(() => [])
        for (const row of rows) values[Number(row.part)]!.push(row.r)
      } catch (error) {
        failure = error
      }
      for (const [index, group] of groups.entries()) {
        if (values)
          settled.push(await group.part.results(values[index]!, group.items).then(fulfilled, rejected))
        else if (refusedByDatabase(failure))
          settled.push(await group.part.alone(group.items).then(fulfilled, rejected))
        else settled.push({ status: 'rejected', reason: failure })
      }
    }
    groups.forEach((group, index) => {
      const outcome = settled[index]!
      group.positions.forEach((position, offset) => {
        results[position] =
          outcome.status === 'fulfilled'
            ? { ok: true, value: outcome.value[offset] }
            : { ok: false, error: outcome.reason }
      })
    })
    return results
  }

  const write = createBatcher<Queued, unknown>(run, { maxBatch: options.maxBatch ?? 500 })

  let parts = 0
  return {
    part<I, O>(part: GroupPart<I, O>): GroupWrite<I, O> {
      const untyped = part as unknown as GroupPart<unknown, unknown>
      const order = parts++
      return async (item) => {
        const outcome = (await write({ part: untyped, order, item })) as
          | { ok: true; value: O }
          | { ok: false; error: unknown }
        if (!outcome.ok) throw outcome.error
        return outcome.value
      }
    },
  }
}

const fulfilled = <T>(value: T): PromiseFulfilledResult<T> => ({ status: 'fulfilled', value })
const rejected = (reason: unknown): PromiseRejectedResult => ({ status: 'rejected', reason })

const shared = new WeakMap<Db, GroupCommit>()

/**
 * The group commit of a database handle, one per handle: every store that writes on the hot path
 * (usage rows, key debit captures, audit rows) takes this one unless given another, so their writes
 * share statements without the composition root wiring them together.
 */
export function groupCommitOf(db: Db): GroupCommit {
  let group = shared.get(db)
  if (!group) {
    group = createGroupCommit(db)
    shared.set(db, group)
  }
  return group
}
