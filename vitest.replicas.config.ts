import { defineConfig } from 'vitest/config'

/** `npm run test:replicas`: the multi-process proofs of one twin on Redis (issue 23), longer than `npm test`. */
export default defineConfig({
  test: {
    include: ['test/replicas/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
})
