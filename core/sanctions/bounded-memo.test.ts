import { describe, expect, it } from 'vitest'
import { createBoundedMemo } from './bounded-memo.ts'

describe('createBoundedMemo', () => {
  it('computes an answer once and returns the remembered one after', () => {
    const memo = createBoundedMemo<string>(10)
    let calls = 0
    const compute = () => `answer ${++calls}`
    expect(memo.get('a', compute)).toBe('answer 1')
    expect(memo.get('a', compute)).toBe('answer 1')
    expect(calls).toBe(1)
  })

  it('drops an answer not asked for since it was kept before one asked for again', () => {
    const memo = createBoundedMemo<number>(2)
    memo.get('a', () => 1)
    memo.get('b', () => 2)
    memo.get('a', () => -1) // a is now the most recent
    memo.get('c', () => 3) // b goes
    expect(memo.size).toBe(2)
    expect(memo.get('a', () => -1)).toBe(1)
    expect(memo.get('b', () => 20)).toBe(20)
  })

  it('still makes room when every answer held was asked for again', () => {
    const memo = createBoundedMemo<number>(2)
    memo.get('a', () => 1)
    memo.get('b', () => 2)
    memo.get('a', () => -1)
    memo.get('b', () => -2)
    memo.get('c', () => 3) // both get their second chance, then a (the oldest) goes
    expect(memo.size).toBe(2)
    expect(memo.get('b', () => -2)).toBe(2)
    expect(memo.get('c', () => -3)).toBe(3)
    expect(memo.get('a', () => 10)).toBe(10)
  })

  it('holds at most its capacity in cost units, and keeps no answer larger than all of it', () => {
    // (none of these is asked for twice, so the oldest go first)
    const memo = createBoundedMemo<number[]>(10, (value) => value.length)
    memo.get('four', () => [1, 2, 3, 4])
    memo.get('five', () => [1, 2, 3, 4, 5])
    expect(memo.cost).toBe(9)
    memo.get('three', () => [1, 2, 3]) // four goes: 5 + 3
    expect(memo.cost).toBe(8)
    expect(memo.size).toBe(2)
    memo.get('eleven', () => Array.from({ length: 11 }, (_, i) => i))
    expect(memo.cost).toBe(8)
    let computed = 0
    memo.get('eleven', () => {
      computed++
      return []
    })
    expect(computed).toBe(1)
  })

  it('remembers an answer of any value, undefined and empty included', () => {
    const memo = createBoundedMemo<undefined | string>(4)
    let calls = 0
    memo.get('none', () => {
      calls++
      return undefined
    })
    memo.get('none', () => {
      calls++
      return 'x'
    })
    expect(calls).toBe(1)
    memo.clear()
    expect(memo.size).toBe(0)
    expect(memo.cost).toBe(0)
  })

  it('stays within its capacity and answers right over a long stream of new keys, some asked for again', () => {
    const memo = createBoundedMemo<string>(1000, (value) => 1 + (value.length % 3))
    let computed = 0
    const answerFor = (n: number) => () => {
      computed++
      return `v${n}`
    }
    let wrong = 0
    let mostHeld = 0
    for (let i = 0; i < 100_000; i++) {
      if (memo.get(`k${i}`, answerFor(i)) !== `v${i}`) wrong++
      if (i % 3 === 0 && i > 10 && memo.get(`k${i - 10}`, answerFor(i - 10)) !== `v${i - 10}`) wrong++
      mostHeld = Math.max(mostHeld, memo.cost)
    }
    expect(wrong).toBe(0)
    expect(mostHeld).toBeLessThanOrEqual(1000)
    // Answers asked for again within a few keys are remembered: fewer computations than asks.
    expect(computed).toBeLessThan(100_000 + 33_330)
    expect(memo.size).toBeGreaterThan(300)
  })
})
