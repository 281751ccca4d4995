import { describe, expectSuccess, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const creativesStatusFilter: Rule = {
  id: 'ads.creatives-status-filter',
  title: 'Creatives filtered by status: every row has it, total_count counts within the filter, available_statuses is as before the filter',
  spec: 'Sales-max ads: POST /ads/creatives',
  level: 'MUST',
  quote: ['`available_statuses` lists statuses present in scope before the status filter; `total_count` is within the status filter.'],
  writes: false,
  operations: ['POST /ads/creatives'],
  async run(t) {
    const all = await t.request('POST /ads/creatives', { body: { page_size: 1000 } })
    if (!expectSuccess(t, all, 'creatives are served')) return
    const available = (all.json.data?.available_statuses ?? []) as string[]
    const status = available[0]
    if (!status) return t.skip('no creative has a delivery status')
    const filtered = await t.request('POST /ads/creatives', { body: { page_size: 1000, statuses: [status] } })
    if (!expectSuccess(t, filtered, 'creatives filtered by status are served')) return
    const rows = rowsOf(filtered.json)
    const fail = (message: string, expected: string) => t.fail({ operation: filtered.op.permission, message, expected, received: describe(filtered, 300), exchange: filtered.exchange })
    if (!rows.every((r) => r.status === status)) fail(`every creative has status ${status}`, `status ${status} on every row`)
    if (JSON.stringify([...(filtered.json.data?.available_statuses ?? [])].sort()) !== JSON.stringify([...available].sort())) fail('available_statuses lists the statuses present before the status filter', JSON.stringify(available))
    if (filtered.json.data?.total_count !== rowsOf(all.json).filter((r) => r.status === status).length && (all.json.data?.total_count ?? 0) <= 1000) {
      fail('total_count counts the creatives within the status filter', String(rowsOf(all.json).filter((r) => r.status === status).length))
    }
  },
}
