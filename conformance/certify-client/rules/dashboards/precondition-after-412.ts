import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

export const preconditionAfter412: ClientRule = {
  id: 'dashboards.precondition-after-412',
  title: 'After a 412 no update of that board goes without expected_updated_at (the change is reapplied on the re-read board)',
  spec: 'Dashboards: POST /dashboards/update (expected_updated_at); Errors: 412 (re-read and reapply)',
  level: 'SHOULD',
  quote: ['| 412 | `expected_updated_at` older than the board\'s `updated_at` | re-read and reapply |', '`expected_updated_at` (if the board changed since, 412)'],
  inferred: 'the spec says "re-read and reapply", not that the reapplied update carries expected_updated_at again; dropping it overwrites the other change blindly',
  scope: 'dashboard updates carrying expected_updated_at',
  situations: ['a board changed before the update'],
  appliesTo: (r) => r.op.operationId === 'updateDashboard' && r.input.expected_updated_at !== undefined,
  grade({ requests }) {
    const stale = requests.filter((r) => r.op.operationId === 'updateDashboard' && r.status === 412)
    if (!stale.length) return notExercised('no dashboard update of the client got a 412')
    const failures: ClientFailure[] = []
    const evidence: number[] = []
    for (const s of stale) {
      const updates = requests.filter((r) => r.seq > s.seq && r.shopId === s.shopId && r.op.operationId === 'updateDashboard' && r.input.dashboard_id === s.input.dashboard_id)
      evidence.push(s.seq, ...updates.map((r) => r.seq))
      for (const blind of updates.filter((r) => r.input.expected_updated_at === undefined)) {
        failures.push({ message: `${describeRequest(blind)} updates board ${s.input.dashboard_id} without expected_updated_at after the 412 of #${s.seq}`, expected: 'expected_updated_at on every update after a 412', received: 'a blind update', requests: [s.seq, blind.seq] })
      }
    }
    return graded(failures, evidence)
  },
}
