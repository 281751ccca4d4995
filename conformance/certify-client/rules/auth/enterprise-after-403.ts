import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientRule } from '../../types.ts'

export const enterpriseAfter403: ClientRule = {
  id: 'auth.enterprise-after-403',
  title: 'After a 403 from an Enterprise endpoint, the key calls no Enterprise endpoint again (its tier will not change)',
  spec: 'What the service does (two tiers); Authentication 4; Errors: 403',
  level: 'SHOULD',
  quote: ['Enterprise endpoints need an Enterprise plan; a standard key is refused with an authorization error.'],
  inferred: 'the spec says a standard key is refused, not that a client must stop asking; not calling again is our reading of a tier that will not change',
  scope: 'calls to Enterprise endpoints',
  situations: ['an Enterprise call refused'],
  appliesTo: (r) => r.op.enterprise,
  grade({ requests }) {
    const refused = requests.filter((r) => r.op.enterprise && r.status === 403)
    if (!refused.length) return notExercised('no Enterprise call of the client was refused with 403')
    const failures = refused.flatMap((first) => {
      const again = requests.filter((r) => r.seq > first.seq && r.op.enterprise && r.keyId === first.keyId)
      return again.length && refused.find((r) => r.keyId === first.keyId) === first
        ? [{ message: `${describeRequest(first)} followed by ${again.length} more Enterprise call(s) with the same key, first ${describeRequest(again[0]!)}`, expected: 'no Enterprise call with a key once refused', received: `${again.length} call(s)`, requests: [first.seq, ...again.map((r) => r.seq)] }]
        : []
    })
    return graded(failures, refused.map((r) => r.seq))
  },
}
