import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

const READS = new Set(['getDashboard', 'listDashboards'])

export const rereadAfter412: ClientRule = {
  id: 'dashboards.reread-after-412',
  title: 'After a 412 the board is read again before the next update of it (re-read and reapply)',
  spec: 'Dashboards: POST /dashboards/update (expected_updated_at); Errors: 412 (re-read and reapply)',
  level: 'MUST',
  quote: ['| 412 | `expected_updated_at` older than the board\'s `updated_at` | re-read and reapply |'],
  scope: 'dashboard updates carrying expected_updated_at',
  situations: ['a board changed before the update'],
  appliesTo: (r) => r.op.operationId === 'updateDashboard' && r.input.expected_updated_at !== undefined,
  grade({ requests }) {
    const stale = requests.filter((r) => r.op.operationId === 'updateDashboard' && r.status === 412)
    if (!stale.length) return notExercised('no dashboard update of the client got a 412')
    const failures: ClientFailure[] = []
    const evidence: number[] = []
    for (const s of stale) {
      const board = s.input.dashboard_id
      const later = requests.filter((r) => r.seq > s.seq && r.shopId === s.shopId)
      const updates = later.filter((r) => r.op.operationId === 'updateDashboard' && r.input.dashboard_id === board)
      evidence.push(s.seq, ...updates.map((r) => r.seq))
      const next = updates[0]
      if (next) {
        const reread = later.find((r) => r.seq < next.seq && READS.has(r.canonicalId) && (r.input.dashboard_id === undefined || r.input.dashboard_id === board))
        if (reread) evidence.push(reread.seq)
        else failures.push({ message: `${describeRequest(s)} followed by ${describeRequest(next)} without reading the board again`, expected: 'GET or POST /dashboards/get (or list) between the 412 and the next update', received: 'no read', requests: [s.seq, next.seq] })
      }
    }
    return graded(failures, evidence)
  },
}
