/**
 * The result of a run as the reporters see it: the target, the contract version, every rule's
 * outcome, which operations were exercised, the verdict and the exit code.
 */
import { createHash } from 'node:crypto'
import { shoptwinVersion } from '../mock/lib/version.ts'
import type { Contract } from '../openapi/index.ts'
import { catalogue } from './catalogue.ts'
import type { Failure, Rule, RuleOutcome, RunOptions } from './types.ts'

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
  toolVersion: string
  /** The command line, keys redacted (set by the CLI). */
  commandLine?: string
  /** SHA-256 of the contract document (its JSON), so a reader knows exactly what was checked against. */
  contractSha256: string
  rps: number
  durationMs: number
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
  /** Errors outside any rule's outcome (a rejection no rule awaited). */
  runErrors: string[]
  summary: { total: number; passed: number; failed: number; errored: number; skipped: number; mustFailed: number; shouldFailed: number; warnings: number; exercised: number; operations: number }
  /**
   * certified: every MUST rule of the catalogue ran to its end and passed (but those `notCheckable`
   * against this target, which the verdict names), and every operation of the contract was exercised; not certified: a MUST rule failed; passed, not certified: nothing
   * failed but the run was partial (`incomplete` says what is missing).
   */
  verdict: 'certified' | 'passed, not certified' | 'not certified'
  /** The verdict as one line, naming what a partial run left out. */
  verdictText: string
  /** Whether the run checked everything a certificate needs. */
  complete: boolean
  /** What a partial run did not check. */
  incomplete: { mustNotRun: Array<{ id: string; reason: string }>; operationsNotExercised: string[] }
  /**
   * MUST rules the target's API gives no way to check (they need operations whose paths the spec does
   * not show, and the target does not serve the contract's inferred ones). They do not keep a run from
   * CERTIFIED; its verdict names them, so the certificate claims no more than was checked.
   */
  notCheckable: Array<{ id: string; reason: string }>
  exitCode: 0 | 1
  /**
   * Which front door was certified: the API (default) or the assistant connector (`--mcp-url`), whose
   * report says what it was given in `facts` instead of the API's shop, pace and keys.
   */
  door?: 'api' | 'connector'
  /** Door-specific run facts as label and plain text (the HTML certificate shows them). */
  facts?: Array<[label: string, text: string]>
}

/** Why a MUST rule of the catalogue has no finished outcome in this run. */
function notRunReason(rule: Pick<Rule, 'id' | 'level'>, outcome: RuleOutcome | undefined): string | undefined {
  if (!outcome) return 'left out by --rules'
  return outcome.status === 'skip' && !outcome.notCheckable ? (outcome.reason ?? 'skipped') : undefined
}

/** `no --enterprise-api-key; no --limited-api-key` from the reasons, each once. */
function reasonsText(reasons: string[]): string {
  return [...new Set(reasons)].join('; ')
}

/** Whether an outcome fails the certification (a MUST rule failed or could not run to the end). */
export const failsCertification = (o: RuleOutcome) => o.level === 'MUST' && (o.status === 'fail' || o.status === 'error')

/** An operation a certificate covers (the API's, or the connector's: see rules/connector/report.ts). */
export type CoveredOperation = Pick<CoverageEntry, 'operationId' | 'permission' | 'tag' | 'inferred'>

/**
 * The warnings of an outcome, as every reporter counts and shows them (terminal, JSON, JUnit, HTML):
 * the findings of a SHOULD rule not met (its error when it has none), then the warnings any rule noted.
 */
export function warningsOf(o: RuleOutcome): Failure[] {
  const notMet = o.level === 'SHOULD' && (o.status === 'fail' || o.status === 'error')
  const own = !notMet ? [] : o.failures.length ? o.failures : [{ rule: o.id, message: o.reason ?? `${o.id} not met`, expected: 'the rule to pass', received: o.status }]
  return [...own, ...o.warnings]
}

/**
 * What a certificate covers: the operations it must see exercised, how the verdict names them, and
 * the operations of the same door no rule checks (named in the verdict so it claims no more).
 */
export interface CoverageScope {
  operations: readonly CoveredOperation[]
  /** Default 'operations'. */
  noun?: string
  /** Operations of the same door in the contract that no rule checks, and what they are (`the contract's connector operations`). */
  unchecked?: { operations: readonly string[]; of: string }
}

export function buildReport(
  contract: Contract,
  options: RunOptions,
  outcomes: RuleOutcome[],
  runErrors: string[],
  startedAt: Date,
  rules: ReadonlyArray<Pick<Rule, 'id' | 'level'> & Partial<Pick<Rule, 'quote' | 'inferred'>>> = catalogue,
  { operations, noun = 'operations', unchecked }: CoverageScope = { operations: contract.operations },
): RunReport {
  // Each outcome says where its level comes from: the spec's words, or our inference and why.
  const provenance = new Map(rules.map((r) => [r.id, r]))
  outcomes = outcomes.map((o) => {
    const rule = provenance.get(o.id)
    return rule?.quote ? { ...o, quote: rule.quote, ...(rule.inferred ? { inferred: rule.inferred } : {}) } : o
  })
  const exercised = new Map<string, Set<string>>()
  for (const outcome of outcomes) {
    for (const operationId of outcome.operations) {
      if (!exercised.has(operationId)) exercised.set(operationId, new Set())
      exercised.get(operationId)!.add(outcome.id)
    }
  }
  const coverage = operations.map((op) => ({
    operationId: op.operationId,
    permission: op.permission,
    tag: op.tag,
    inferred: op.inferred,
    exercisedBy: [...(exercised.get(op.operationId) ?? [])],
  }))
  const count = (status: RuleOutcome['status']) => outcomes.filter((o) => o.status === status).length
  const mustFailed = outcomes.filter(failsCertification).length + (runErrors.length ? 1 : 0)
  const byId = new Map(outcomes.map((o) => [o.id, o]))
  const mustNotRun = rules
    .filter((r) => r.level === 'MUST')
    .flatMap((r) => {
      const reason = notRunReason(r, byId.get(r.id))
      return reason === undefined ? [] : [{ id: r.id, reason }]
    })
  const notCheckable = outcomes.filter((o) => o.level === 'MUST' && o.status === 'skip' && o.notCheckable).map((o) => ({ id: o.id, reason: (o.reason ?? '').replace(/^not checkable against this target: /, '') }))
  const notCheckableText = notCheckable.length
    ? `; ${notCheckable.length} MUST rule${notCheckable.length > 1 ? 's' : ''} not checkable against this target (${notCheckable.map((n) => n.id).join(', ')}: ${reasonsText(notCheckable.map((n) => n.reason))})`
    : ''
  const operationsNotExercised = coverage.filter((c) => !c.exercisedBy.length).map((c) => c.operationId)
  const complete = mustNotRun.length === 0 && operationsNotExercised.length === 0 && runErrors.length === 0
  const verdict: RunReport['verdict'] = mustFailed ? 'not certified' : complete ? 'certified' : 'passed, not certified'
  const exercisedCount = coverage.length - operationsNotExercised.length
  const uncheckedText = unchecked?.operations.length ? `; no rule checks ${unchecked.operations.length} more of ${unchecked.of} (${unchecked.operations.join(', ')})` : ''
  const partial = [
    ...(mustNotRun.length ? [`${mustNotRun.length} MUST rule${mustNotRun.length > 1 ? 's' : ''} not run (${reasonsText(mustNotRun.map((m) => m.reason))})`] : []),
    `${exercisedCount}/${coverage.length} ${noun}${uncheckedText}`,
  ].join(', ')
  const verdictText =
    verdict === 'certified'
      ? `CERTIFIED: every ${notCheckable.length ? 'checkable ' : ''}MUST rule passed, ${coverage.length}/${coverage.length} ${noun} exercised${uncheckedText}${notCheckableText}`
      : verdict === 'not certified'
        ? `NOT CERTIFIED: ${mustFailed} MUST rule${mustFailed > 1 ? 's' : ''} failed${complete ? '' : `; ${partial}`}`
        : `PASSED, NOT CERTIFIED: ${partial}${notCheckableText}`
  const exitCode: 0 | 1 = mustFailed || (options.requireCertified && verdict !== 'certified') ? 1 : 0
  const finishedAt = new Date()
  return {
    tool: 'shoptwin conformance',
    toolVersion: shoptwinVersion(),
    contractSha256: createHash('sha256').update(JSON.stringify(contract.doc)).digest('hex'),
    rps: options.rps,
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    target: options.baseUrl,
    shopId: options.shopId,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
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
      warnings: outcomes.reduce((n, o) => n + warningsOf(o).length, 0),
      exercised: coverage.filter((c) => c.exercisedBy.length).length,
      operations: coverage.length,
    },
    verdict,
    verdictText,
    complete,
    incomplete: { mustNotRun, operationsNotExercised },
    notCheckable,
    exitCode,
  }
}
