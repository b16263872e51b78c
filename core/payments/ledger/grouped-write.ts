import { type Db, executePrepared } from '../../store/database.ts'
import { type GroupCommit, refusedByDatabase, StatementParams } from '../../store/group-commit.ts'

/**
 * One ledger step written for a batch of calls (a nonce claim, a settlement row's insert or one of
 * its hot updates): the batch as data-modifying common table expressions whose text does not depend
 * on the batch size (columns bound as arrays, read with `unnest`), a query over them returning one
 * `text` column `r` per row written, and how each item's outcome is read from those values.
 */
export interface LedgerStep<I> {
  statement(items: readonly I[], prefix: string, params: StatementParams): { ctes: string[]; result: string }
  /** Each item's outcome (true: its row was written or moved), in the items' order. */
  outcomes(values: readonly unknown[], items: readonly I[]): boolean[]
  /**
   * The row an item writes, when other kinds of item may write the same row: a statement's CTEs
   * all see the snapshot it started from, so PostgreSQL applies only one of two updates of a row
   * in one statement and drops the other without an error. An item whose row an earlier item of
   * the batch writes is therefore written after the shared statement, alone.
   */
  rowOf?(item: I): string | undefined
}

/** Which items of a batch go after the shared statement: their row is written by an earlier item. */
function laterWrites<I>(step: LedgerStep<I>, items: readonly I[]): boolean[] {
  const rowOf = step.rowOf
  if (!rowOf) return items.map(() => false)
  const seen = new Set<string>()
  return items.map((item) => {
    const row = rowOf(item)
    if (row === undefined) return false
    if (seen.has(row)) return true
    seen.add(row)
    return false
  })
}

type Outcome = { ok: true; value: boolean } | { ok: false; error: unknown }

/**
 * A ledger step whose items share statements: the items of concurrent calls go out together, in the
 * statement the other hot writes of those calls share (core/store/group-commit.ts: usage rows, key
 * debit captures, audit rows), so an x402 call's ledger steps cost no statement of their own under
 * load. Each item still commits before its call goes on, so a process killed between two steps of a
 * call leaves the row exactly where the unbatched step would have. When the database refuses a
 * batch (a constraint one item broke: nothing was written), each item is written again alone, so
 * only that item fails, as it would have alone.
 */
export function groupedLedgerStep<I>(
  db: Db,
  group: GroupCommit,
  step: LedgerStep<I>,
): (item: I) => Promise<boolean> {
  async function runOnce(items: readonly I[]): Promise<boolean[]> {
    const params = new StatementParams()
    const { ctes, result } = step.statement(items, '', params)
    const rows = await executePrepared(db, `with ${ctes.join(', ')} ${result}`, params.values)
    return step.outcomes(
      rows.map((row) => row.r),
      items,
    )
  }
  /** Each item's outcome, `first` from the values of the statement that wrote them, the later writes after it one by one. */
  async function withLaterWrites(
    items: readonly I[],
    first: (items: readonly I[]) => Promise<boolean[]>,
  ): Promise<boolean[]> {
    const later = laterWrites(step, items)
    const outcomes = await first(items.filter((_, index) => !later[index]))
    const all: boolean[] = []
    let next = 0
    for (const [index, item] of items.entries()) {
      if (!later[index]) all.push(outcomes[next++]!)
      else all.push((await runOnce([item]))[0] === true)
    }
    return all
  }
  const run = (items: readonly I[]) => withLaterWrites(items, runOnce)
  const write = group.part<I, Outcome>({
    statement: async (items, prefix, params) => {
      const later = laterWrites(step, items)
      return step.statement(
        items.filter((_, index) => !later[index]),
        prefix,
        params,
      )
    },
    results: async (values, items) =>
      (await withLaterWrites(items, async (shared) => step.outcomes(values, shared))).map((value) => ({
        ok: true,
        value,
      })),
    async alone(items) {
      try {
        return (await run(items)).map((value) => ({ ok: true, value }))
      } catch (error) {
        if (items.length === 1 || !refusedByDatabase(error)) throw error
        const outcomes: Outcome[] = []
        for (const item of items) {
          outcomes.push(
            await run([item]).then(
              ([value]) => ({ ok: true, value: value === true }),
              (itemError: unknown) => ({ ok: false, error: itemError }),
            ),
          )
        }
        return outcomes
      }
    },
  })
  return async (item) => {
    const outcome = await write(item)
    if (!outcome.ok) throw outcome.error
    return outcome.value
  }
}

/** The items whose key was not seen earlier in the batch (a row is written once per statement). */
export function firstOfEach<I>(items: readonly I[], key: (item: I) => string): boolean[] {
  const seen = new Set<string>()
  return items.map((item) => {
    const k = key(item)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/** One item of a combined step (combineSteps): which step it belongs to, and the step's item. */
export interface TaggedItem<K extends string> {
  step: K
  item: unknown
}

/**
 * Several ledger steps as one: every statement carries each step's CTEs, those without items over
 * empty arrays (they write nothing), so the statement's text is the same whichever steps a batch
 * holds. The group commit prepares one text per set of kinds present, so one kind for the whole
 * ledger keeps those texts few (PGlite keeps a bounded number of prepared statements).
 */
export function combineSteps<K extends string>(
  // biome-ignore lint/suspicious/noExplicitAny: each step reads its own items' type
  steps: Record<K, LedgerStep<any>>,
): LedgerStep<TaggedItem<K>> {
  const names = Object.keys(steps) as K[]
  const itemsOf = (items: readonly TaggedItem<K>[], name: K) =>
    items.filter((tagged) => tagged.step === name).map((tagged) => tagged.item)
  return {
    statement(items, prefix, params) {
      const built = names.map((name) =>
        steps[name].statement(itemsOf(items, name), `${prefix}${name}_`, params),
      )
      return {
        ctes: built.flatMap((statement) => statement.ctes),
        result: built
          .map((statement, index) => `select '${names[index]}:' || q.r as r from (${statement.result}) as q`)
          .join(' union all '),
      }
    },
    rowOf: (tagged) => steps[tagged.step].rowOf?.(tagged.item),
    outcomes(values, items) {
      const outcomes: boolean[] = new Array(items.length).fill(false)
      for (const name of names) {
        const tag = `${name}:`
        const stepValues = values.map(String).filter((value) => value.startsWith(tag))
        const positions = items.flatMap((tagged, index) => (tagged.step === name ? [index] : []))
        const stepOutcomes = steps[name].outcomes(
          stepValues.map((value) => value.slice(tag.length)),
          positions.map((position) => items[position]!.item),
        )
        positions.forEach((position, offset) => {
          outcomes[position] = stepOutcomes[offset]!
        })
      }
      return outcomes
    },
  }
}
