/**
 * The vitest test file the CLI runs: one vitest test per selected rule, in catalogue order. The
 * outcome of each rule travels to the main process in the test's meta, where the collector
 * reporter picks it up. Not named *.test.ts: `npm test` must not run it without a target.
 */
import { inject, test } from 'vitest'
import { selectRules } from '../catalogue.ts'
import { createRunEnvironment, runRule } from './run-rule.ts'
import type { RunOptions } from '../types.ts'
import { describeOutcome } from './describe.ts'
import { PROGRESS_MARK } from './collector.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    conformance: RunOptions
  }
}

const options = inject('conformance')
const env = createRunEnvironment(options)
// Progress crosses from this worker to the terminal as a marked console line (see collector.ts).
env.onProgress = (ruleId, message) => console.log(`${PROGRESS_MARK}${JSON.stringify({ ruleId, message })}`)

for (const rule of selectRules(options.rules)) {
  const timeout = (rule.timeoutSeconds ?? options.ruleTimeoutSeconds) * 1000
  test(rule.id, { timeout: timeout + 5_000 }, async ({ task, skip }) => {
    const outcome = await runRule(rule, env)
    ;(task.meta as Record<string, unknown>).conformance = outcome
    if (outcome.status === 'skip') skip(outcome.reason)
    if (outcome.status === 'fail' || outcome.status === 'error') throw new Error(describeOutcome(outcome))
  })
}
