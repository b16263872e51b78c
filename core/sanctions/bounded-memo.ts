/**
 * A memo of a pure function's answers that holds at most `capacity` units (each answer costs
 * `costOf(answer)` units, at least 1), the least recently used dropped first. The fuzzy screen
 * keeps its per-word work in these (fuzzy-screen.ts): names are made of words that recur from
 * one screen to the next (given names, "trading", "group"), and what a word pairs with in the
 * listed vocabulary depends on the word alone, so a recurring word costs a lookup instead of a
 * few hundred comparisons. Bounded by cost, so the memory it holds is bounded whatever the
 * words, and a stream of new words only ever replaces old ones.
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

/** A BoundedMemo over a Map, whose insertion order is the recency order (a hit moves to the end). */
export function createBoundedMemo<V>(
  capacity: number,
  costOf: (value: V) => number = () => 1,
): BoundedMemo<V> {
  const entries = new Map<string, { value: V; cost: number }>()
  let held = 0
  return {
    get(key, compute) {
      const known = entries.get(key)
      if (known !== undefined) {
        entries.delete(key)
        entries.set(key, known)
        return known.value
      }
      const value = compute()
      const cost = Math.max(1, costOf(value))
      // An answer larger than the whole memo is returned, not kept.
      if (cost > capacity) return value
      for (const [oldest, entry] of entries) {
        if (held + cost <= capacity) break
        entries.delete(oldest)
        held -= entry.cost
      }
      entries.set(key, { value, cost })
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
      held = 0
    },
  }
}
