import { describeRequest, graded, notExercised, retryOf } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

/** Inferred: the spec gives the in-flight window (60 s) but no delay; an immediate retry only meets the 409 again. */
export const MIN_CONFLICT_DELAY_MS = 1000

export const conflictRetryLater: ClientRule = {
  id: 'idempotency.conflict-retry-later',
  title: 'After a 409 (same key in flight) the retry waits at least a second',
  spec: 'Idempotency (409 while in flight, up to 60 seconds); Errors: 409',
  level: 'SHOULD',
  quote: ['a concurrent request with the same key gets 409 for up to 60 seconds while the first is in flight'],
  inferred: 'the spec gives the in-flight window (60 s) but no delay before a retry: the 1 s minimum is ours (an immediate retry only meets the 409 again)',
  scope: 'idempotent writes carrying an Idempotency-Key',
  situations: ['a 409 in flight'],
  appliesTo: (r) => r.op.idempotent && r.idempotencyKey !== null,
  grade({ requests }) {
    const conflicts = requests.filter((r) => r.op.idempotent && r.status === 409 && r.idempotencyKey !== null)
    if (!conflicts.some((c) => retryOf(c, requests))) return notExercised(conflicts.length ? 'no 409 (in flight) was retried' : 'no keyed write of the client got a 409 (in flight)')
    const failures: ClientFailure[] = []
    const evidence: number[] = []
    for (const c of conflicts) {
      const retry = retryOf(c, requests)
      evidence.push(c.seq, ...(retry ? [retry.seq] : []))
      // A missing retry or another key is idempotency.conflict-retry-same-key's finding; this rule judges the wait.
      if (retry && retry.atMs - c.atMs < MIN_CONFLICT_DELAY_MS) failures.push({ message: `${describeRequest(c)} retried ${retry.atMs - c.atMs} ms later as ${describeRequest(retry)}`, expected: `a retry at least ${MIN_CONFLICT_DELAY_MS} ms later`, received: `${retry.atMs - c.atMs} ms`, requests: [c.seq, retry.seq] })
    }
    return graded(failures, evidence)
  },
}
