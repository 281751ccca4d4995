import { graded, notExercised } from '../../support.ts'
import type { ClientRule } from '../../types.ts'
import { inputFindings } from './request-bodies.ts'

export const inferredRequestBodies: ClientRule = {
  id: 'contract.inferred-request-bodies',
  title: 'Request bodies are valid against the contract where its schema is inferred (operations and fields the spec does not show)',
  spec: 'OpenAPI document (x-inferred operations and schema parts)',
  level: 'SHOULD',
  quote: ['Request and response bodies: not shown.'],
  inferred: 'the spec does not show these bodies ("not shown"): the contract inferred their schemas, so a body it refuses may be one the service accepts',
  scope: 'requests with a body or a query',
  situations: [],
  appliesTo: (r) => (r.op.hasBody ? r.bodyText !== '' : r.op.query.length > 0),
  grade({ requests, contract }) {
    const findings = inputFindings(requests, contract).filter((f) => f.inferred)
    const onInferred = requests.filter((r) => r.op.inferred && (r.op.hasBody ? r.bodyText !== '' : r.op.query.length > 0))
    if (!onInferred.length && !findings.length) return notExercised('the client sent no body to an operation the spec does not show')
    return graded(findings.map((f) => f.failure), [...onInferred.map((r) => r.seq).slice(0, 5), ...findings.flatMap((f) => f.failure.requests)])
  },
}
