import { defineConfig } from 'vitest/config'

/** `npm run test:mutants`: every conformance rule fails against the mock with its killing mutation (conformance/README.md); its own script keeps `npm test` under 12 minutes. */
export default defineConfig({
  test: {
    include: ['test/conformance-mutations.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
