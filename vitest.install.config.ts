import { defineConfig } from 'vitest/config'

/**
 * `npm run test:install`: shoptwin installed from a git clone, as the README shows (it installs the whole
 * toolchain there: longer than `npm test`), and from its tarball with pnpm and Yarn PnP (test/consumer-pm).
 */
export default defineConfig({
  test: {
    include: ['test/consumer-install.test.ts', 'test/determinism-versions.install-test.ts', 'test/consumer-pm.install-test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
})
