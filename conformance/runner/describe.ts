import type { RuleOutcome } from '../types.ts'

/** One paragraph saying why a rule did not pass (the JUnit message, the mock test's error). */
export function describeOutcome(outcome: RuleOutcome): string {
  if (outcome.status === 'error') return `error: ${outcome.reason ?? 'unknown'}`
  if (outcome.status === 'skip') return `skipped: ${outcome.reason ?? ''}`
  return outcome.failures
    .map((f) => `${f.operation ? `${f.operation}: ` : ''}${f.message} (expected ${f.expected}; received ${f.received})`)
    .join('\n')
}
