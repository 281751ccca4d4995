import { createDashboard } from '../../resources.ts'
import { describe, expectError, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const staleUpdate412: Rule = {
  id: 'dashboards.stale-update-412',
  title: 'An update whose expected_updated_at is older than the board\'s updated_at gets 412; a current one succeeds',
  spec: 'Dashboards: POST /dashboards/update; Errors',
  level: 'MUST',
  quote: ['`expected_updated_at` (if the board changed since, 412)', '| 412 | `expected_updated_at` older than the board\'s `updated_at` | re-read and reapply |'],
  writes: true,
  operations: ['POST /dashboards/create', 'POST /dashboards/update', 'DELETE /dashboards/delete'],
  async run(t) {
    const created = await createDashboard(t, { name: t.name('board') })
    if (!expectSuccess(t, created, 'the board is created')) return
    const board = created.json.data
    const updatedAt = Date.parse(board.updated_at)
    if (!Number.isFinite(updatedAt)) {
      return t.fail({ operation: created.op.permission, message: 'the created board has an updated_at timestamp', expected: 'an ISO timestamp', received: describe(created), exchange: created.exchange })
    }
    const current = await t.request('POST /dashboards/update', { body: { dashboard_id: board.id, default_grain: 'week', expected_updated_at: board.updated_at } })
    if (!expectSuccess(t, current, 'an update with the current updated_at succeeds')) return
    // The board changed since the stale timestamp (it was just updated): re-read and reapply.
    const stale = new Date(updatedAt - 60_000).toISOString()
    const refused = await t.request('POST /dashboards/update', { body: { dashboard_id: board.id, default_grain: 'month', expected_updated_at: stale } })
    expectError(t, refused, 412, undefined, 'an update with an older expected_updated_at gets 412')
  },
}
