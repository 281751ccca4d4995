import { describe, expectSuccess, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'
import { nullableSorts } from './cases.ts'

export const nullsLast: Rule = {
  id: 'sorting.nulls-last',
  title: 'Sorting on a field that may be null puts the nulls last in both directions',
  spec: 'Sponsored-video codes; Sales-max ads (sort_direction, nulls last)',
  level: 'MUST',
  quote: ['`sort_direction` (`ASC`/`DESC`, nulls last)', '`sort_direction` (`ASC`/`DESC`, default `DESC`, nulls last)'],
  writes: false,
  operations: [...new Set(nullableSorts.map((c) => c.permission))],
  async run(t) {
    let seenNull = false
    for (const sort of nullableSorts) {
      for (const direction of sort.directions) {
        const reply = await t.request(sort.permission, { body: sort.body(direction) })
        if (!expectSuccess(t, reply, `sort by ${sort.field} ${direction} is served`)) continue
        const values = rowsOf(reply.json).map(sort.value)
        const firstNull = values.findIndex((v) => v === null || v === undefined)
        if (firstNull >= 0) seenNull = true
        const valueAfterNull = firstNull >= 0 && values.slice(firstNull).some((v) => v !== null && v !== undefined)
        t.check(!valueAfterNull, {
          operation: sort.permission,
          message: `nulls come last when sorting by ${sort.field} ${direction}`,
          expected: 'every null after every value',
          received: valueAfterNull ? `a value after the null at row ${firstNull} — ${describe(reply, 120)}` : '',
          exchange: reply.exchange,
        })
      }
    }
    if (!seenNull) t.warn({ message: 'no sorted page held a null: nulls-last was not observable on this target', expected: 'a row with a null sort field', received: 'none' })
  },
}
