/**
 * A vitest reporter that collects the rules' outcomes from the tests' meta and hands each one to
 * a listener as it arrives (the terminal reporter prints live progress from it).
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node'
import type { RuleOutcome } from '../types.ts'

/** Marks a console line of the worker as a rule's progress, not the rule's own output. */
export const PROGRESS_MARK = '\u0000shoptwin-progress '

export interface CollectorEvents {
  onOutcome?: (outcome: RuleOutcome) => void
  onProgress?: (ruleId: string, message: string) => void
}

export class OutcomeCollector implements Reporter {
  readonly outcomes: RuleOutcome[] = []
  /** Errors vitest reported outside any rule (a file that failed to load, a crash). */
  readonly runErrors: string[] = []
  private readonly events: CollectorEvents

  constructor(events: CollectorEvents = {}) {
    this.events = events
  }

  onTestCaseResult(testCase: TestCase): void {
    const meta = testCase.meta() as Record<string, unknown>
    let outcome = meta.conformance as RuleOutcome | undefined
    if (!outcome) {
      // The test ended without an outcome: it timed out or crashed before runRule returned.
      const result = testCase.result()
      const reason = result.state === 'failed' ? result.errors?.map((e) => e.message).join('; ') : 'no outcome'
      outcome = {
        id: testCase.name, title: testCase.name, spec: '', level: 'MUST', writes: false, area: testCase.name.split('.')[0],
        status: 'error', reason: reason ?? 'no outcome', failures: [], warnings: [], operations: [], exchanges: [], durationMs: 0,
      }
    }
    this.outcomes.push(outcome)
    this.events.onOutcome?.(outcome)
  }

  onUserConsoleLog(log: { content: string }): void {
    if (!log.content.startsWith(PROGRESS_MARK)) return
    const { ruleId, message } = JSON.parse(log.content.slice(PROGRESS_MARK.length)) as { ruleId: string; message: string }
    this.events.onProgress?.(ruleId, message)
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>): void {
    for (const module of testModules) {
      for (const error of module.errors()) this.runErrors.push(error.message)
    }
    for (const error of unhandledErrors) this.runErrors.push(error.message ?? String(error))
  }
}
