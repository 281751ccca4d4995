import { describeRequest, failedInTransit, graded, heldBack, notExercised, retryOf } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

export const retrySameKey: ClientRule = {
  id: 'idempotency.retry-same-key',
  title: 'A write that failed with a 5xx, a dropped connection or a timeout is retried with the same Idempotency-Key (no duplicate side effect)',
  spec: 'Idempotency (5xx responses are not cached, so a retry can succeed; replay without a second effect)',
  level: 'MUST',
  quote: ['5xx responses and uncaught exceptions are not cached, so a retry can succeed.', 'replay returns the original response identically'],
  scope: 'idempotent writes',
  situations: ['a write fault'],
  appliesTo: (r) => r.op.idempotent,
  grade({ requests }) {
    // A write held back counts once the client retried it (it timed out); waiting it out is fine.
    const failed = requests.filter((r) => r.op.idempotent && (failedInTransit(r) || (heldBack(r) && retryOf(r, requests))))
    if (!failed.length) return notExercised('no idempotent write of the client failed with a 5xx, a dropped connection or a timeout')
    const failures: ClientFailure[] = []
    const evidence: number[] = []
    for (const f of failed) {
      const retry = retryOf(f, requests)
      evidence.push(f.seq, ...(retry ? [retry.seq] : []))
      const applied = f.applied ? 'it had acted' : 'it had not acted'
      if (!retry) {
        failures.push({ message: `${describeRequest(f)} was never retried (${applied}: the client cannot know which, and the write may be lost)`, expected: 'a retry with the same Idempotency-Key', received: 'no retry', requests: [f.seq] })
        continue
      }
      if (f.idempotencyKey !== null && retry.idempotencyKey === f.idempotencyKey) continue
      const duplicate = f.applied && retry.applied ? '; duplicate side effect observed: both attempts acted' : ''
      failures.push({
        message: `${describeRequest(f)} retried as ${describeRequest(retry)} ${f.idempotencyKey === null ? 'without an Idempotency-Key on the write' : 'with another Idempotency-Key'}${duplicate}`,
        expected: `the retry carries Idempotency-Key ${f.idempotencyKey ?? '(one, from the first attempt on)'}`,
        received: `first attempt ${f.idempotencyKey ?? 'no key'}, retry ${retry.idempotencyKey ?? 'no key'}${duplicate ? ' (two effects)' : ''}`,
        requests: [f.seq, retry.seq],
      })
    }
    return graded(failures, evidence)
  },
}
