/**
 * The suite's runner: the selected rules in this process, one after another in catalogue order,
 * each within its time limit, sharing one environment (contract, paced client, learned facts). The
 * CLI and `runConformance` run it; it writes nothing (no cache, no temporary file).
 */
import { selectRules } from '../catalogue.ts'
import { redactText, TargetUnreachable } from '../client.ts'
import { areaOf, type Rule, type RuleOutcome, type RunOptions } from '../types.ts'
import { createRunEnvironment, runRule } from './run-rule.ts'

export interface RunEvents {
  /** Each rule's outcome as it finishes (the terminal's live progress). */
  onOutcome?: (outcome: RuleOutcome) => void
  /** A waiting rule's progress line (`t.progress`). */
  onProgress?: (ruleId: string, message: string) => void
}

export interface RunResult {
  /** One outcome per rule run, in run order. */
  outcomes: RuleOutcome[]
  /** Errors outside any rule's own outcome (a rejection no rule awaited): each one fails the run. */
  runErrors: string[]
}

/** Runs the rules `options.rules` selects (default: all), in order; `rules` overrides the selection. */
export async function runSelectedRules(options: RunOptions, events: RunEvents = {}, rules: readonly Rule[] = selectRules(options.rules)): Promise<RunResult> {
  const outcomes: RuleOutcome[] = []
  const runErrors: string[] = []
  // A promise a rule let go of (not awaited) that rejects would end the process; it is a run error instead.
  const stray = (reason: unknown) => runErrors.push(`unhandled rejection: ${reason instanceof Error ? reason.message : String(reason)}`)
  const env = createRunEnvironment(options)
  process.on('unhandledRejection', stray)
  try {
    env.onProgress = events.onProgress
    for (const rule of rules) {
      let outcome: RuleOutcome
      try {
        outcome = await runRule(rule, env, { timeoutMs: (rule.timeoutSeconds ?? options.ruleTimeoutSeconds) * 1000 })
      } catch (error) {
        // The target stopped answering (runRule's only throw): this rule could not run to its end.
        const reason = error instanceof TargetUnreachable ? `target unreachable: ${error.message}` : String(error)
        outcome = brokenOff(rule, redactText(reason, env.secrets))
      }
      outcomes.push(outcome)
      events.onOutcome?.(outcome)
    }
  } finally {
    process.off('unhandledRejection', stray)
  }
  return { outcomes, runErrors }
}

/** The outcome of a rule broken off before it could report (status error). */
function brokenOff(rule: Rule, reason: string): RuleOutcome {
  return {
    id: rule.id, title: rule.title, spec: rule.spec, level: rule.level, writes: rule.writes, area: areaOf(rule.id),
    status: 'error', reason, failures: [], warnings: [], operations: [], exchanges: [], durationMs: 0,
  }
}
