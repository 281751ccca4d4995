import { defineConfig } from 'vitest/config'

/** `npm run test:replicas`: the multi-process proofs of one twin on Redis (issue 23), longer than `npm test`. */
export default defineConfig({
  test: {
    include: ['test/replicas/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 900_000,
    // An expect.poll without a timeout of its own waits 10 s, not vitest's 1 s: what it waits for (a
    // timer's work in another process, a flush, a release) comes late on a loaded 2-core machine; a
    // poll that passes returns as soon as it does.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
})
