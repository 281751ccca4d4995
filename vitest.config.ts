import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', '{openapi,fixtures,mock,conformance}/**/*.test.ts'],
    // The replicas' multi-process proofs run with `npm run test:replicas` (vitest.replicas.config.ts).
    exclude: ['test/replicas/**', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
