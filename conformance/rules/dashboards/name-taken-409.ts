import { createDashboard } from '../../resources.ts'
import { expectError, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const nameTaken409: Rule = {
  id: 'dashboards.name-taken-409',
  title: 'Creating or renaming a board to a name already used on the shop gets 409',
  spec: 'Dashboards: create, update; Errors',
  level: 'MUST',
  quote: ['`name` (1-60 characters, unique among the shop\'s boards, else 409)', 'optional `name` (1-60, 409 if taken on any shop the board shows on)'],
  writes: true,
  operations: ['POST /dashboards/create', 'POST /dashboards/update', 'DELETE /dashboards/delete'],
  async run(t) {
    const name = t.name('board')
    const first = await createDashboard(t, { name })
    if (!expectSuccess(t, first, 'the first board is created')) return
    expectError(t, await createDashboard(t, { name }), 409, undefined, 'a second board with the same name gets 409')
    const second = await createDashboard(t, { name: t.name('board') })
    if (!expectSuccess(t, second, 'a board with another name is created')) return
    expectError(t, await t.request('POST /dashboards/update', { body: { dashboard_id: second.json.data.id, name } }), 409, undefined, 'renaming a board to a taken name gets 409')
  },
}
