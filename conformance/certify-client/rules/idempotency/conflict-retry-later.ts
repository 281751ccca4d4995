import { describeRequest, graded, notExercised, retryOf } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

/** Inferred: the spec gives the in-flight window (60 s) but no delay; an immediate retry only meets the 409 again. */
export const MIN_CONFLICT_DELAY_MS = 1000

export const conflictRetryLater: ClientRule = {
  id: 'idempotency.conflict-retry-later',
  title: 'After a 409 (same key in flight) the write is retried with the same Idempotency-Key, at least a second later',
  spec: 'Idempotency (409 while in flight, up to 60 seconds); Errors: 409',
  level: 'MUST',
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
      else if (retry.atMs - c.atMs < MIN_CONFLICT_DELAY_MS) failures.push({ message: `${describeRequest(c)} retried ${retry.atMs - c.atMs} ms later as ${describeRequest(retry)}`, expected: `a retry at least ${MIN_CONFLICT_DELAY_MS} ms later`, received: `${retry.atMs - c.atMs} ms`, requests: [c.seq, retry.seq] })
    }
    return graded(failures, evidence)
  },
}
