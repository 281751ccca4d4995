import { KEY_PATTERN } from '../../../../mock/pipeline/idempotency.ts'
import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientRule } from '../../types.ts'

export const keyFormat: ClientRule = {
  id: 'idempotency.key-format',
  title: 'Every Idempotency-Key sent matches ^[A-Za-z0-9-]{1,128}$',
  spec: 'Idempotency; Limits: idempotency key pattern; Errors (400 Invalid idempotency key format)',
  level: 'MUST',
  quote: ['| Idempotency | key pattern `^[A-Za-z0-9-]{1,128}$`;'],
  scope: 'requests carrying an Idempotency-Key',
  situations: [],
  appliesTo: (r) => r.idempotencyKey !== null,
  grade({ requests }) {
    const keyed = requests.filter((r) => r.idempotencyKey !== null)
    if (!keyed.length) return notExercised('the client sent no Idempotency-Key')
    const failures = keyed
      .filter((r) => !KEY_PATTERN.test(r.idempotencyKey!))
      .map((r) => ({ message: `${describeRequest(r)}: malformed Idempotency-Key`, expected: '^[A-Za-z0-9-]{1,128}$', received: JSON.stringify(r.idempotencyKey), requests: [r.seq] }))
    return graded(failures, keyed.map((r) => r.seq).slice(0, 5))
  },
}
