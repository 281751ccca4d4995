import { availableParallelism } from 'node:os'
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
    // An expect.poll without a timeout of its own waits 10 s, not vitest's 1 s: what it waits for (a
    // timer's work in another process, a flush, a release) comes late on a loaded 2-core machine; a
    // poll that passes returns as soon as it does.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time at least: vitest's default is one worker fewer than the cores, which is one
    // on a 2-core machine, and the suite then waits alone on every subprocess, browser, npm install and
    // rate-limited run (the baseline left a core idle 29% of the time). Files share no fixed port or
    // path (port 0, temp dirs, test-results/ names of their own).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Every test runs in a time zone that is not UTC, with a 30-minute daylight-saving shift (and so do
    // the CLIs and servers the tests start): an answer, a world or a report that read local time would
    // differ from the UTC the machines of CI and of most users have. `TZ=UTC npm test` runs them in UTC.
    env: { TZ: process.env.TZ ?? 'Australia/Lord_Howe' },
  },
})
