import { describe, expect, it } from 'vitest'
import { undici } from './undici.ts'

describe('undici for webhook deliveries', () => {
  it("does not replace the dispatcher of Node's built-in fetch", () => {
    const dispatcher = (globalThis as unknown as Record<symbol, unknown>)[
      Symbol.for('undici.globalDispatcher.1')
    ]
    expect(dispatcher).toBeDefined()
    expect(dispatcher).not.toBeInstanceOf(undici.Agent)
  })
})
