/**
 * A memo of a pure function's answers that holds at most `capacity` units (each answer costs
 * `costOf(answer)` units, at least 1); when full, answers not asked for since the last sweep go
 * first (the CLOCK, or second-chance, approximation of least-recently-used: a hit only marks its
 * answer, so it costs one lookup). The fuzzy screen keeps its per-word work in these
 * (fuzzy-screen.ts): names are made of words that recur from one screen to the next (given
 * names, "trading", "group"), and what a word pairs with in the listed vocabulary depends on the
 * word alone, so a recurring word costs a lookup instead of a few hundred comparisons. Bounded by
 * cost, so the memory it holds is bounded whatever the words, and a stream of new words only ever
 * replaces old ones.
 */
export interface BoundedMemo<V> {
  /** The answer for `key`: remembered, or computed by `compute` now (and then remembered). */
  get(key: string, compute: () => V): V
  /** Answers held. */
  readonly size: number
  /** Units held (the sum of their costs). */
  readonly cost: number
  clear(): void
}

interface Held<V> {
  key: string
  value: V
  cost: number
  /** Asked for since the sweep last passed it. */
  used: boolean
}

/**
 * A BoundedMemo over a Map (the lookup) and a queue of the answers in sweep order (a plain
 * array read from `head`): the sweep takes the oldest from the front and puts one asked for
 * since at the back. A queue, not the Map's own order: deleting a Map's first entries and
 * iterating from its start again walks over every deleted slot until the Map is rebuilt, which a
 * full memo (every new word evicts) paid on each miss.
 */
export function createBoundedMemo<V>(
  capacity: number,
  costOf: (value: V) => number = () => 1,
): BoundedMemo<V> {
  const entries = new Map<string, Held<V>>()
  // Swept slots are emptied at once, so an answer that goes is not held by the queue until the next compaction.
  let queue: Array<Held<V> | undefined> = []
  let head = 0
  let held = 0
  return {
    get(key, compute) {
      const known = entries.get(key)
      if (known !== undefined) {
        known.used = true
        return known.value
      }
      const value = compute()
      const cost = Math.max(1, costOf(value))
      // An answer larger than the whole memo is returned, not kept.
      if (cost > capacity) return value
      // The oldest first: one asked for since goes to the back, unmarked; one not, goes.
      while (held + cost > capacity) {
        const oldest = queue[head]!
        queue[head++] = undefined
        if (oldest.used) {
          oldest.used = false
          queue.push(oldest)
        } else {
          entries.delete(oldest.key)
          held -= oldest.cost
        }
      }
      // The swept front is dropped once it is half the queue (amortised: each answer is moved once).
      if (head > 64 && head * 2 > queue.length) {
        queue = queue.slice(head)
        head = 0
      }
      const answer: Held<V> = { key, value, cost, used: false }
      entries.set(key, answer)
      queue.push(answer)
      held += cost
      return value
    },
    get size() {
      return entries.size
    },
    get cost() {
      return held
    },
    clear() {
      entries.clear()
      queue = []
      head = 0
      held = 0
    },
  }
}
