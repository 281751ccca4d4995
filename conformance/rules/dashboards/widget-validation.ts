import { createDashboard } from '../../resources.ts'
import { expectError, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const widgetValidation: Rule = {
  id: 'dashboards.widget-validation',
  title: 'Dashboards refuse an unknown stat key on create and an unknown widget id in widget_ids or remove_widget_ids with 400',
  spec: 'Dashboards: create, data, update; Errors',
  level: 'MUST',
  quote: ['unknown stat key or unsupported widget type on dashboard create; unknown widget id in `widget_ids` or `remove_widget_ids`', '`widget_ids` (400 if one is not on the board)', '`remove_widget_ids` (any type; 400 if absent)'],
  writes: true,
  operations: ['POST /dashboards/create', 'POST /dashboards/data', 'POST /dashboards/update', 'DELETE /dashboards/delete'],
  async run(t) {
    expectError(t, await createDashboard(t, { name: t.name('board'), widgets: [{ type: 'stat', stat_key: 'conformance_no_such_stat' }] }), 400, undefined, 'an unknown stat key is refused')
    const board = await createDashboard(t, { name: t.name('board'), widgets: [{ type: 'stat', stat_key: 'total_gmv' }] })
    if (!expectSuccess(t, board, 'a board with a known stat key is created')) return
    const id = board.json.data.id
    const missingWidget = '00000000-0000-4000-8000-00000000c0f0'
    expectError(t, await t.request('POST /dashboards/data', { body: { dashboard_id: id, widget_ids: [missingWidget] } }), 400, undefined, 'an unknown widget id in widget_ids is refused')
    expectError(t, await t.request('POST /dashboards/update', { body: { dashboard_id: id, remove_widget_ids: [missingWidget] } }), 400, undefined, 'an unknown widget id in remove_widget_ids is refused')
    expectSuccess(t, await t.request('POST /dashboards/data', { body: { dashboard_id: id } }), 'the board\'s data is served')
  },
}
