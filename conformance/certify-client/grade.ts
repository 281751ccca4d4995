/**
 * Grades a recording: every client rule, its outcome (pass, fail; not applicable when the client
 * made none of the requests the rule is about; not exercised when it did but the situation never
 * arose), the verdict and the exit code. A certificate is scoped to what the client does: it names
 * the operations the client called, and every MUST rule applicable to them must be exercised and pass.
 */
import { createHash } from 'node:crypto'
import { loadContract, type Contract, type OperationInfo } from '../../openapi/index.ts'
import { areaNormalizers } from '../../mock/areas/index.ts'
import { parseQuery, schemaResolver } from '../../mock/pipeline/query.ts'
import type { RecordedRequest } from '../../mock/pipeline/certification.ts'
import type { Quote } from '../provenance.ts'
import { areaOf, type RuleLevel } from '../types.ts'
import { clientRules } from './rules/index.ts'
import { safeJson, type Recording } from './session.ts'
import type { ClientFailure, ClientRule, GradedRequest } from './types.ts'

export type ClientRuleStatus = 'pass' | 'fail' | 'not exercised' | 'not applicable'

export interface ClientRuleOutcome {
  id: string
  title: string
  spec: string
  level: RuleLevel
  /** The spec sentence(s) the rule enforces. */
  quote: readonly Quote[]
  /** Why a SHOULD rule is not a MUST: what of it is our inference. */
  inferred?: string
  /** The requests the rule is about (`dashboard updates carrying expected_updated_at`). */
  scope: string
  area: string
  status: ClientRuleStatus
  /** Why the rule was not exercised or is not applicable. */
  reason?: string
  failures: ClientFailure[]
  /** The requests behind the outcome (seq numbers; the failures name theirs too). */
  evidence: number[]
}

export interface ClientReport {
  tool: string
  contractTitle: string
  contractVersion: string
  contractSha256: string
  /** The command run, keys redacted (set by the CLI). */
  commandLine?: string
  profile: string
  seed: number
  startedAt: string
  finishedAt: string
  /** What the twin produced, by situation, with the requests it was produced on. */
  situations: Record<string, number[]>
  outcomes: ClientRuleOutcome[]
  /** Every request of the session (key ids, never keys). */
  requests: RecordedRequest[]
  /** Errors outside the rules (the command's exit status). */
  runErrors: string[]
  /** The operations the client called (canonical permissions, `POST /automations/create`): what a certificate covers. */
  operations: string[]
  /** Operations the run had to cover (`--require-operations`) that the client never called. */
  missingOperations: string[]
  summary: { rules: number; passed: number; failed: number; notExercised: number; notApplicable: number; mustFailed: number; shouldFailed: number; requests: number }
  verdict: 'certified' | 'passed, not certified' | 'not certified'
  verdictText: string
  exitCode: 0 | 1
}

/** The requests as the rules read them: operation, input (JSON body or GET query, camelCase read as snake_case). Also used by proxy/. */
export function enrich(requests: RecordedRequest[], contract: Contract, resolve = schemaResolver(contract.doc)): GradedRequest[] {
  return requests.flatMap((r) => enrichOne(r, contract, resolve))
}

/** One request as the rules read it; none when the contract does not know its operation. */
function enrichOne(r: RecordedRequest, contract: Contract, resolve: ReturnType<typeof schemaResolver>): GradedRequest[] {
  const op = contract.byId.get(r.operationId)
  if (!op) return []
  let canonical: OperationInfo = op
  for (let hops = 0; canonical.aliasOf && contract.byId.has(canonical.aliasOf) && hops < 5; hops++) canonical = contract.byId.get(canonical.aliasOf)!
  const body = op.hasBody ? safeJson(r.bodyText) : undefined
  let input: Record<string, any> = op.hasBody ? (body ?? {}) : op.query.length ? parseQuery(new URLSearchParams(r.query), op.query, resolve) : {}
  // camelCase keys read as the service reads them (spec: Conventions 4).
  const normalize = areaNormalizers[op.operationId] ?? areaNormalizers[canonical.operationId]
  if (normalize) {
    try {
      input = normalize(structuredClone(input), op, contract)
    } catch {
      // A refusal of the normalizer: the raw input is judged.
    }
  }
  return [{ ...r, op, input, canonicalId: canonical.operationId, parseError: op.hasBody && r.bodyText !== '' && body === undefined }]
}

/** Requests read per step of gradingSteps. */
const ENRICH_STEP = 250

function outcomeOf(rule: ClientRule, requests: GradedRequest[], recording: Recording, contract: Contract): ClientRuleOutcome {
  const base = { id: rule.id, title: rule.title, spec: rule.spec, level: rule.level, quote: rule.quote, ...(rule.inferred ? { inferred: rule.inferred } : {}), scope: rule.scope, area: areaOf(rule.id) }
  if (!requests.some((r) => rule.appliesTo(r))) return { ...base, status: 'not applicable', reason: `the client made no ${rule.scope}`, failures: [], evidence: [] }
  const grade = rule.grade({ recording, requests, contract })
  if (!grade.exercised) return { ...base, status: 'not exercised', reason: grade.reason, failures: [], evidence: [] }
  return { ...base, status: grade.failures.length ? 'fail' : 'pass', failures: grade.failures, evidence: grade.evidence }
}

/** An operation as a certificate names it: its permission (`POST /automations/create`), the spec's own naming. */
const permissionOf = (contract: Contract, operationId: string): string => contract.byId.get(operationId)?.permission ?? operationId

/** Whether `wanted` (an operationId or a permission, `POST /automations/create`) names one of `called` (canonical operationIds). */
function covers(contract: Contract, called: Set<string>, wanted: string): boolean {
  const op = contract.byId.get(wanted) ?? contract.operations.find((o) => o.permission === wanted)
  if (!op) return false
  let canonical = op
  for (let hops = 0; canonical.aliasOf && contract.byId.has(canonical.aliasOf) && hops < 5; hops++) canonical = contract.byId.get(canonical.aliasOf)!
  return called.has(canonical.operationId)
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * The report of a finished recording. `requireOperations` (operationIds or permissions) is the slice
 * a partner's CI insists on: a client that did not call one of them does not pass (exit 1).
 */
export function gradeRecording(recording: Recording, options: GradingOptions = {}): ClientReport {
  const steps = gradingSteps(recording, options)
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value
}

export interface GradingOptions {
  contract?: Contract
  rules?: readonly ClientRule[]
  runErrors?: string[]
  requireOperations?: readonly string[]
}

/**
 * gradeRecording in steps: it yields after each ENRICH_STEP requests read and after each rule, and returns the
 * report. The same computation in the same order (gradeRecording runs it through): a caller that
 * must not hold its event loop for a whole grading (the proxy's client windows) runs it a step at a time.
 */
export function* gradingSteps(recording: Recording, { contract = loadContract(), rules = clientRules, runErrors = [], requireOperations = [] }: GradingOptions = {}): Generator<void, ClientReport, void> {
  const { requests, outcomes } = yield* outcomeSteps(recording, { contract, rules })
  return reportOf(recording, contract, requests, outcomes, runErrors, requireOperations)
}

/** The rules' outcomes alone, in the steps of gradingSteps (the proxy's windows fold only these: the report around them is built once, for the whole traffic). */
export function* outcomeSteps(recording: Recording, { contract = loadContract(), rules = clientRules }: Pick<GradingOptions, 'contract' | 'rules'> = {}): Generator<void, { requests: GradedRequest[]; outcomes: ClientRuleOutcome[] }, void> {
  const resolve = schemaResolver(contract.doc)
  const requests: GradedRequest[] = []
  const preparing = rules.filter((rule) => rule.prepare)
  for (let i = 0; i < recording.requests.length; i += ENRICH_STEP) {
    const from = requests.length
    for (const r of recording.requests.slice(i, i + ENRICH_STEP)) requests.push(...enrichOne(r, contract, resolve))
    yield
    // The rules' per-request work on these requests (ClientRule.prepare), a step of its own.
    if (!preparing.length) continue
    const read = requests.slice(from)
    for (const rule of preparing) rule.prepare!(read, contract)
    yield
  }
  const outcomes: ClientRuleOutcome[] = []
  for (const rule of rules) {
    outcomes.push(outcomeOf(rule, requests, recording, contract))
    yield
  }
  return { requests, outcomes }
}

function reportOf(recording: Recording, contract: Contract, requests: GradedRequest[], outcomes: ClientRuleOutcome[], runErrors: string[], requireOperations: readonly string[]): ClientReport {
  const called = new Set(requests.map((r) => r.canonicalId))
  const operations = [...called].map((id) => permissionOf(contract, id)).sort()
  const missingOperations = requireOperations.filter((wanted) => !covers(contract, called, wanted))
  const must = outcomes.filter((o) => o.level === 'MUST' && o.status !== 'not applicable')
  const mustFailed = must.filter((o) => o.status === 'fail').length + (runErrors.length ? 1 : 0)
  const notExercised = must.filter((o) => o.status === 'not exercised')
  const verdict: ClientReport['verdict'] = mustFailed ? 'not certified' : notExercised.length || missingOperations.length || !operations.length ? 'passed, not certified' : 'certified'
  const partial = [
    ...(notExercised.length ? [`${plural(notExercised.length, 'MUST rule')} not exercised (${notExercised.map((o) => o.id).join(', ')})`] : []),
    ...(missingOperations.length ? [`${plural(missingOperations.length, 'required operation')} not called (${missingOperations.join(', ')})`] : []),
    ...(!operations.length ? ['the client made no request'] : []),
  ].join('; ')
  const verdictText =
    verdict === 'certified'
      ? `CERTIFIED for ${plural(operations.length, 'operation')}: every applicable MUST rule exercised and passed (${must.length}/${must.length}), profile ${recording.profile.name}`
      : verdict === 'not certified'
        ? `NOT CERTIFIED: ${plural(mustFailed, 'MUST rule')} failed${runErrors.length ? ' or the run failed' : ''}${partial ? `; ${partial}` : ''}`
        : `PASSED, NOT CERTIFIED: ${partial}`
  const situations: Record<string, number[]> = {}
  for (const r of recording.requests) if (r.injected) (situations[r.injected] ??= []).push(r.seq)
  return {
    tool: 'shoptwin certify-client',
    contractTitle: contract.doc.info.title,
    contractVersion: contract.doc.info.version,
    contractSha256: createHash('sha256').update(JSON.stringify(contract.doc)).digest('hex'),
    profile: recording.profile.name,
    seed: recording.seed,
    startedAt: recording.startedAt,
    finishedAt: recording.finishedAt ?? recording.startedAt,
    situations,
    operations,
    missingOperations,
    outcomes,
    requests: recording.requests,
    runErrors,
    summary: {
      rules: outcomes.length,
      passed: outcomes.filter((o) => o.status === 'pass').length,
      failed: outcomes.filter((o) => o.status === 'fail').length,
      notExercised: outcomes.filter((o) => o.status === 'not exercised').length,
      notApplicable: outcomes.filter((o) => o.status === 'not applicable').length,
      mustFailed,
      shouldFailed: outcomes.filter((o) => o.level === 'SHOULD' && o.status === 'fail').length,
      requests: recording.requests.length,
    },
    verdict,
    verdictText,
    // A slice the partner required and the client did not cover fails the run, as a failed rule does.
    exitCode: mustFailed || missingOperations.length ? 1 : 0,
  }
}
