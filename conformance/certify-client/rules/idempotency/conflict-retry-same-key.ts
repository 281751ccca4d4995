import { describeRequest, graded, notExercised, retryOf } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

export const conflictRetrySameKey: ClientRule = {
  id: 'idempotency.conflict-retry-same-key',
  title: 'After a 409 (same key in flight) the write is retried, with the same Idempotency-Key',
  spec: 'Idempotency (409 while in flight, up to 60 seconds); Errors: 409',
  level: 'MUST',
  quote: ['a concurrent request with the same key gets 409 for up to 60 seconds while the first is in flight', '5xx responses and uncaught exceptions are not cached, so a retry can succeed.'],
  scope: 'idempotent writes carrying an Idempotency-Key',
  situations: ['a 409 in flight'],
  appliesTo: (r) => r.op.idempotent && r.idempotencyKey !== null,
  grade({ requests }) {
    const conflicts = requests.filter((r) => r.op.idempotent && r.status === 409 && r.idempotencyKey !== null)
    if (!conflicts.length) return notExercised('no keyed write of the client got a 409 (in flight)')
    const failures: ClientFailure[] = []
    const evidence: number[] = []
    for (const c of conflicts) {
      const retry = retryOf(c, requests)
      evidence.push(c.seq, ...(retry ? [retry.seq] : []))
      if (!retry) failures.push({ message: `${describeRequest(c)} was never retried: the write is lost`, expected: 'a later retry with the same Idempotency-Key', received: 'no retry', requests: [c.seq] })
      else if (retry.idempotencyKey !== c.idempotencyKey) failures.push({ message: `${describeRequest(c)} retried as ${describeRequest(retry)} with another key`, expected: `Idempotency-Key ${c.idempotencyKey}`, received: retry.idempotencyKey ?? 'no key', requests: [c.seq, retry.seq] })
    }
    return graded(failures, evidence)
  },
}
