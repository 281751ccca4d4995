import { describeAjvError, type OperationInfo } from '../../../../openapi/index.ts'
import { querySchema } from '../../../../mock/pipeline/validate.ts'
import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'
import { withoutLegacyKeys } from '../outreach/no-legacy-keys.ts'

/** Page sizes over their maximum are paging.page-size-max's finding, not this rule's. */
function withinPageLimits(op: OperationInfo, input: Record<string, any>): Record<string, any> {
  const paging = op.paging
  if (!paging || typeof input[paging.sizeParam] !== 'number' || input[paging.sizeParam] <= paging.max) return input
  return { ...input, [paging.sizeParam]: paging.max }
}

export const requestBodies: ClientRule = {
  id: 'contract.request-bodies',
  title: 'Request bodies (and GET queries) are valid against the contract',
  spec: 'OpenAPI document (every operation); Endpoints: Conventions 4, 6, 7',
  level: 'MUST',
  quote: ['A machine-readable OpenAPI 3.1 description exists; each operation has a unique operationId and names the permission it needs.', 'Dates in requests are `YYYY-MM-DD`; ranges are objects `{from, to}`.'],
  scope: 'requests with a body or a query',
  appliesTo: (r) => (r.op.hasBody ? r.bodyText !== '' : r.op.query.length > 0),
  grade({ requests, contract }) {
    const checked = requests.filter((r) => r.op.hasBody ? r.bodyText !== '' : r.op.query.length > 0)
    if (!checked.length) return notExercised('the client sent no body and no query')
    const failures: ClientFailure[] = []
    for (const r of checked) {
      if (r.op.hasBody && r.parseError) {
        failures.push({ message: `${describeRequest(r)}: the body is not a JSON object`, expected: 'a JSON object', received: r.bodyText.slice(0, 200), requests: [r.seq] })
        continue
      }
      // Legacy automation keys are outreach.no-legacy-keys' finding, not this rule's.
      const validate = r.op.hasBody ? contract.validators.requestBody(r.op) : contract.validators.compile(`${r.op.operationId}:query`, querySchema(r.op))
      if (validate && !validate(withinPageLimits(r.op, withoutLegacyKeys(r.op, r.input)))) {
        const error = describeAjvError(validate.errors![0]!, r.op.hasBody ? 'body' : 'query')
        failures.push({ message: `${describeRequest(r)}: ${error}`, expected: `a ${r.op.hasBody ? 'body' : 'query'} valid against ${r.op.operationId}'s schema`, received: error, requests: [r.seq] })
      }
    }
    return graded(failures, checked.map((r) => r.seq).slice(0, 5))
  },
}
