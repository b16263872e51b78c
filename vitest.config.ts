import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{core,http,tools,server,client,test,examples}/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
  },
})
