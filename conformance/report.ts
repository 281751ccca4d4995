/**
 * The result of a run as the reporters see it: the target, the contract version, every rule's
 * outcome, which operations were exercised, the verdict and the exit code.
 */
import type { Contract } from '../openapi/index.ts'
import type { RuleOutcome, RunOptions } from './types.ts'

export interface CoverageEntry {
  operationId: string
  permission: string
  tag: string
  inferred: boolean
  /** Rules whose requests reached this operation. */
  exercisedBy: string[]
}

export interface RunReport {
  tool: string
  target: string
  shopId: string
  startedAt: string
  finishedAt: string
  contractTitle: string
  contractVersion: string
  allowWrites: boolean
  rulesSelected: string[]
  outcomes: RuleOutcome[]
  coverage: CoverageEntry[]
  /** Errors vitest reported outside any rule. */
  runErrors: string[]
  summary: { total: number; passed: number; failed: number; errored: number; skipped: number; mustFailed: number; shouldFailed: number; warnings: number; exercised: number; operations: number }
  /** certified: every MUST rule passed. */
  verdict: 'certified' | 'not certified'
  exitCode: 0 | 1
}

/** Whether an outcome fails the certification (a MUST rule failed or could not run to the end). */
export const failsCertification = (o: RuleOutcome) => o.level === 'MUST' && (o.status === 'fail' || o.status === 'error')

export function buildReport(contract: Contract, options: RunOptions, outcomes: RuleOutcome[], runErrors: string[], startedAt: Date): RunReport {
  const exercised = new Map<string, Set<string>>()
  for (const outcome of outcomes) {
    for (const operationId of outcome.operations) {
      if (!exercised.has(operationId)) exercised.set(operationId, new Set())
      exercised.get(operationId)!.add(outcome.id)
    }
  }
  const coverage = contract.operations.map((op) => ({
    operationId: op.operationId,
    permission: op.permission,
    tag: op.tag,
    inferred: op.inferred,
    exercisedBy: [...(exercised.get(op.operationId) ?? [])],
  }))
  const count = (status: RuleOutcome['status']) => outcomes.filter((o) => o.status === status).length
  const mustFailed = outcomes.filter(failsCertification).length + (runErrors.length ? 1 : 0)
  return {
    tool: 'shoptwin conformance',
    target: options.baseUrl,
    shopId: options.shopId,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    contractTitle: contract.doc.info.title,
    contractVersion: contract.doc.info.version,
    allowWrites: options.allowWrites,
    rulesSelected: options.rules,
    outcomes,
    coverage,
    runErrors,
    summary: {
      total: outcomes.length,
      passed: count('pass'),
      failed: count('fail'),
      errored: count('error'),
      skipped: count('skip'),
      mustFailed,
      shouldFailed: outcomes.filter((o) => o.level === 'SHOULD' && (o.status === 'fail' || o.status === 'error')).length,
      warnings: outcomes.reduce((n, o) => n + o.warnings.length, 0),
      exercised: coverage.filter((c) => c.exercisedBy.length).length,
      operations: coverage.length,
    },
    verdict: mustFailed ? 'not certified' : 'certified',
    exitCode: mustFailed ? 1 : 0,
  }
}
