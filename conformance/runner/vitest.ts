/**
 * Starts vitest through its Node API on the suite file, with the run's options provided to the
 * worker and the outcome collector as the only reporter.
 */
import { fileURLToPath } from 'node:url'
import { startVitest } from 'vitest/node'
import type { RuleOutcome, RunOptions } from '../types.ts'
import { OutcomeCollector } from './collector.ts'

const projectRoot = fileURLToPath(new URL('../../', import.meta.url))
// The suite file beside this one: suite.ts in the repository, suite.js in the installed package.
const suiteFile = fileURLToPath(new URL(`./suite${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url))

/** Runs the selected rules in a vitest worker; returns their outcomes in order. */
export async function runWithVitest(options: RunOptions, onOutcome?: (outcome: RuleOutcome) => void, onProgress?: (ruleId: string, message: string) => void): Promise<{ outcomes: RuleOutcome[]; runErrors: string[] }> {
  const collector = new OutcomeCollector({ onOutcome, onProgress })
  const vitest = await startVitest(
    [],
    {
      root: projectRoot,
      config: false,
      watch: false,
      include: [suiteFile],
      // Installed, the suite lives under node_modules, which vitest excludes by default.
      exclude: [],
      reporters: [collector],
      pool: 'forks',
      fileParallelism: false,
      passWithNoTests: true,
      // The suite's own timeouts are per rule (see suite.ts); no retry: a verdict is a verdict.
      testTimeout: options.ruleTimeoutSeconds * 1000,
      provide: { conformance: options },
    },
    { server: { watch: null }, logLevel: 'silent' },
  )
  await vitest.close()
  return { outcomes: collector.outcomes, runErrors: collector.runErrors }
}
