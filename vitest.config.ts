import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', '{openapi,fixtures,mock,conformance}/**/*.test.ts'],
    // Longer suites have their own scripts, which .ci/run also runs: the replicas' multi-process proofs
    // (`npm run test:replicas`), the install from a git clone, which installs the whole toolchain
    // (`npm run test:install`), and the mutants that prove every conformance rule can fail
    // (`npm run test:mutants`, 80 s: npm test keeps under its 12 minutes on 2 cores).
    exclude: ['test/replicas/**', 'test/consumer-install.test.ts', 'test/conformance-mutations.test.ts', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
