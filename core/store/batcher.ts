/**
 * Group commit for hot database statements (key lookups, balance debits, usage rows): while one
 * batch is in flight, new items queue, and the next batch carries all of them in one statement.
 * A batch goes out at the end of the current event-loop turn (setImmediate), so the requests
 * parsed in one turn share it even on PGlite, whose queries run on this thread; an idle caller
 * waits one turn. Under load many requests share one statement. Every item of a batch arrived before its statement
 * was sent, so a batched read or write sees the database no earlier than an unbatched one would.
 */
export type BatchRunner<I, O> = (items: readonly I[]) => Promise<readonly O[]>

/** Queues one item; resolves with its own result (or rejects with the batch's error). */
export type Batcher<I, O> = (item: I) => Promise<O>

interface Pending<I, O> {
  item: I
  resolve(value: O): void
  reject(error: unknown): void
}

/**
 * Builds a batcher around `run`, which gets the queued items in arrival order and must return
 * one result per item, in the same order. At most `maxBatch` items (default 256) go in one call.
 */
export function createBatcher<I, O>(
  run: BatchRunner<I, O>,
  options: { maxBatch?: number } = {},
): Batcher<I, O> {
  const maxBatch = options.maxBatch ?? 256
  const queue: Pending<I, O>[] = []
  let scheduled = false

  async function flush(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch)
      try {
        const results = await run(batch.map((pending) => pending.item))
        if (results.length !== batch.length)
          throw new Error('batch runner returned the wrong number of results')
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i] as O)
      } catch (error) {
        for (const pending of batch) pending.reject(error)
      }
    }
    scheduled = false
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject })
      if (!scheduled) {
        scheduled = true
        setImmediate(() => void flush())
      }
    })
}

/** One batcher per key (e.g. per API key id), dropped when idle so the map stays small. */
export function createKeyedBatcher<I, O>(
  run: (key: string, items: readonly I[]) => Promise<readonly O[]>,
  options: { maxBatch?: number } = {},
): (key: string, item: I) => Promise<O> {
  const batchers = new Map<string, { batcher: Batcher<I, O>; waiting: number }>()
  return async (key, item) => {
    let entry = batchers.get(key)
    if (!entry) {
      entry = { batcher: createBatcher((items) => run(key, items), options), waiting: 0 }
      batchers.set(key, entry)
    }
    entry.waiting++
    try {
      return await entry.batcher(item)
    } finally {
      entry.waiting--
      if (entry.waiting === 0) batchers.delete(key)
    }
  }
}
