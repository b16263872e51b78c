import { describe, expect, it } from 'vitest'
import { createBatcher, createKeyedBatcher } from './batcher.ts'

describe('group commit batcher', () => {
  it('sends the items queued in one turn as one batch and gives each its own result', async () => {
    const batches: number[][] = []
    const double = createBatcher<number, number>(async (items) => {
      batches.push([...items])
      return items.map((item) => item * 2)
    })
    expect(await Promise.all([double(1), double(2), double(3)])).toEqual([2, 4, 6])
    expect(batches).toEqual([[1, 2, 3]])
  })

  it('queues items that arrive while a batch is in flight for the next batch', async () => {
    const batches: number[][] = []
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const echo = createBatcher<number, number>(async (items) => {
      batches.push([...items])
      if (batches.length === 1) await gate
      return items
    })
    const first = echo(1)
    await new Promise((resolve) => setImmediate(resolve))
    const later = [echo(2), echo(3)]
    release()
    expect(await Promise.all([first, ...later])).toEqual([1, 2, 3])
    expect(batches).toEqual([[1], [2, 3]])
  })

  it('splits batches at maxBatch', async () => {
    const sizes: number[] = []
    const echo = createBatcher<number, number>(
      async (items) => {
        sizes.push(items.length)
        return items
      },
      { maxBatch: 2 },
    )
    await Promise.all([1, 2, 3, 4, 5].map((n) => echo(n)))
    expect(sizes).toEqual([2, 2, 1])
  })

  it('rejects every item of a failed batch and keeps serving later ones', async () => {
    let calls = 0
    const flaky = createBatcher<number, number>(async (items) => {
      calls++
      if (calls === 1) throw new Error('database down')
      return items
    })
    const failed = await Promise.allSettled([flaky(1), flaky(2)])
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected'])
    expect(await flaky(3)).toBe(3)
  })

  it('never puts items of different keys in one batch', async () => {
    const batches: string[] = []
    const tag = createKeyedBatcher<number, string>(async (key, items) => {
      batches.push(`${key}:${items.join(',')}`)
      return items.map((item) => `${key}${item}`)
    })
    expect(await Promise.all([tag('a', 1), tag('b', 2), tag('a', 3)])).toEqual(['a1', 'b2', 'a3'])
    expect(batches.sort()).toEqual(['a:1,3', 'b:2'])
  })
})
