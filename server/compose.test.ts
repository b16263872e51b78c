import { describe, expect, it } from 'vitest'
import { keyChangeListenerCount } from '../core/keys/api-keys.ts'
import { createTestService } from '../test/support/service.ts'

describe('the composition root', () => {
  it('leaves no key-change listener behind: three services created and closed', async () => {
    const before = keyChangeListenerCount()
    for (let i = 0; i < 3; i++) {
      const service = await createTestService('pglite')
      expect(keyChangeListenerCount()).toBe(before + 1)
      await service.close()
    }
    expect(keyChangeListenerCount()).toBe(before)
  }, 120_000)
})
