import { describe, expectSuccess, isNumber, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'
import { numericSorts } from './cases.ts'

export const sortOrder: Rule = {
  id: 'sorting.order',
  title: 'Sorted listings come in the asked order, ascending and descending',
  spec: 'Account and shop; Timeseries searches; CRM; Sales-max ads; Social',
  level: 'MUST',
  quote: ['`sort_by` (`price` or `units_sold`, default `units_sold`), `sort_direction` (`asc` or `desc`, default `desc`)', '`search_params` holds `date_range`, `sort_by`, `sort_direction` (`ASC` or `DESC`)'],
  writes: false,
  operations: [...new Set(numericSorts.map((c) => c.permission))],
  async run(t) {
    for (const sort of numericSorts) {
      for (const direction of sort.directions) {
        const reply = await t.request(sort.permission, { body: sort.body(direction) })
        if (!expectSuccess(t, reply, `sort by ${sort.field} ${direction} is served`)) continue
        const values = rowsOf(reply.json).map(sort.value).filter(isNumber)
        const ascending = direction.toLowerCase() === 'asc'
        const badAt = values.findIndex((v, i) => i > 0 && (ascending ? v < values[i - 1] : v > values[i - 1]))
        t.check(badAt < 0, {
          operation: sort.permission,
          message: `rows are sorted by ${sort.field} ${direction}`,
          expected: `${sort.field} ${ascending ? 'non-decreasing' : 'non-increasing'} down the page`,
          received: badAt < 0 ? '' : `row ${badAt}: ${values[badAt]} after ${values[badAt - 1]} — ${describe(reply, 120)}`,
          exchange: reply.exchange,
        })
      }
    }
  },
}
