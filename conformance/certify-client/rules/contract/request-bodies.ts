import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js'
import { describeAjvError, type Contract, type JsonSchema, type OperationInfo } from '../../../../openapi/index.ts'
import { inferredAlong } from '../../../schema.ts'
import { querySchema } from '../../../../mock/pipeline/validate.ts'
import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule, GradedRequest } from '../../types.ts'
import { withoutLegacyKeys } from '../outreach/no-legacy-keys.ts'

/** Page sizes over their maximum are paging.page-size-max's finding, not this rule's. */
function withinPageLimits(op: OperationInfo, input: Record<string, any>): Record<string, any> {
  const paging = op.paging
  if (!paging || typeof input[paging.sizeParam] !== 'number' || input[paging.sizeParam] <= paging.max) return input
  return { ...input, [paging.sizeParam]: paging.max }
}

/**
 * The last verdict of each validator (one per operation and input kind), with the text it was read
 * from. Validation is a pure function of the operation and the input, and the input a pure function
 * of the body's (or the query's) text (grade.ts enrich: parse, then the area's normaliser), so a
 * byte-identical text gets the last verdict without validating again: a client repeating a request,
 * graded window after window by the proxy (proxy/client-grading.ts) and by both rules here. Exact,
 * never a sample: a text that differs by one byte is validated anew.
 */
const lastVerdicts = new WeakMap<ValidateFunction, { text: string; error: ErrorObject | undefined }>()

/** The first error of `r`'s input against `validate`, or undefined when it is valid. */
function firstError(validate: ValidateFunction, r: GradedRequest): ErrorObject | undefined {
  const text = r.op.hasBody ? r.bodyText : r.query
  const last = lastVerdicts.get(validate)
  if (last?.text === text) return last.error
  const error = validate(withinPageLimits(r.op, withoutLegacyKeys(r.op, r.input))) ? undefined : validate.errors![0]!
  lastVerdicts.set(validate, { text, error })
  return error
}

/** Requests with a body, or a query on a GET form. */
const hasInput = (r: GradedRequest) => (r.op.hasBody ? r.bodyText !== '' : r.op.query.length > 0)

type InputFinding = { failure: ClientFailure; inferred: boolean }

/**
 * Each request's finding (or null), once per request: a pure function of it (a request is read
 * against one contract: its `op` is that contract's), so both rules here read the same verdicts, and
 * the grading's reading steps compute them ahead in small pieces (`prepare`, grade.ts outcomeSteps)
 * instead of in one long rule step over a whole window.
 */
const findingsByRequest = new WeakMap<GradedRequest, InputFinding | null>()

function findingOf(r: GradedRequest, contract: Contract): InputFinding | null {
  let finding = findingsByRequest.get(r)
  if (finding === undefined) findingsByRequest.set(r, (finding = judgeInput(r, contract)))
  return finding
}

/** A request's invalid body or query, and whether the schema part it breaks is our inference (an x-inferred operation or schema part: a body the spec does not show). */
function judgeInput(r: GradedRequest, contract: Contract): InputFinding | null {
  if (r.op.hasBody && r.parseError) return { failure: { message: `${describeRequest(r)}: the body is not a JSON object`, expected: 'a JSON object', received: r.bodyText.slice(0, 200), requests: [r.seq] }, inferred: false }
  // Legacy automation keys are outreach.no-legacy-keys' finding, not this rule's.
  const validate = r.op.hasBody ? contract.validators.requestBody(r.op) : contract.validators.compile(`${r.op.operationId}:query`, querySchema(r.op))
  const ajvError = validate && firstError(validate, r)
  if (!ajvError) return null
  const error = describeAjvError(ajvError, r.op.hasBody ? 'body' : 'query')
  const schema = (r.op.hasBody ? (r.op.operation.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content?.['application/json']?.schema : querySchema(r.op)) as JsonSchema | undefined
  const inferred = r.op.inferred || (schema !== undefined && inferredAlong(contract, schema, ajvError.instancePath))
  return { failure: { message: `${describeRequest(r)}: ${error}`, expected: `a ${r.op.hasBody ? 'body' : 'query'} valid against ${r.op.operationId}'s schema`, received: error, requests: [r.seq] }, inferred }
}

/** Each invalid body or query among `requests`, in order (see judgeInput). */
export function inputFindings(requests: GradedRequest[], contract: Contract): InputFinding[] {
  const findings: InputFinding[] = []
  for (const r of requests) {
    if (!hasInput(r)) continue
    const finding = findingOf(r, contract)
    if (finding) findings.push(finding)
  }
  return findings
}

export const requestBodies: ClientRule = {
  id: 'contract.request-bodies',
  title: 'Request bodies (and GET queries) are valid against the contract where the spec shows them',
  spec: 'OpenAPI document (every operation); Endpoints: Conventions 4, 6, 7',
  level: 'MUST',
  quote: ['A machine-readable OpenAPI 3.1 description exists; each operation has a unique operationId and names the permission it needs.', 'Dates in requests are `YYYY-MM-DD`; ranges are objects `{from, to}`.'],
  scope: 'requests with a body or a query',
  situations: [],
  appliesTo: (r) => (r.op.hasBody ? r.bodyText !== '' : r.op.query.length > 0),
  prepare(requests, contract) {
    for (const r of requests) if (hasInput(r)) findingOf(r, contract)
  },
  grade({ requests, contract }) {
    const checked = requests.filter(hasInput)
    if (!checked.length) return notExercised('the client sent no body and no query')
    // Findings on what the spec does not show are contract.inferred-request-bodies' (a warning).
    const failures = inputFindings(requests, contract).filter((f) => !f.inferred).map((f) => f.failure)
    return graded(failures, checked.map((r) => r.seq).slice(0, 5))
  },
}
