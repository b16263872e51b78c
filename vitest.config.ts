import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{core,http,tools,server,client,e2e,examples}/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['core/testing/global-setup.ts'],
  },
})
