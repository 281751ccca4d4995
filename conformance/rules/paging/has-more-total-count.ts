import { describe, expectSuccess, recentRange, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const hasMoreTotalCount: Rule = {
  id: 'paging.has-more-total-count',
  title: 'has_more is true exactly while rows remain; total_count counts every row; spark total_count is null unless include_total',
  spec: 'Conventions 2; Timeseries searches; Sponsored-video codes',
  level: 'MUST',
  quote: ['product and SKU responses add `has_more` (boolean) and `total_count` (integer)', 'with `total_count` null when `include_total` is false'],
  writes: false,
  operations: ['POST /timeseries/products', 'POST /spark/list'],
  async run(t) {
    const searchParams = { date_range: recentRange(90), sort_by: 'total_gmv', sort_direction: 'DESC' }
    const first = await t.request('POST /timeseries/products', { body: { page_size: 1, page_number: 1, search_params: searchParams } })
    if (expectSuccess(t, first, 'the product timeseries answers')) {
      const total = first.json.total_count as number
      const check = (reply: typeof first, expectedMore: boolean, what: string) =>
        t.check(reply.json?.has_more === expectedMore && rowsOf(reply.json).length <= 1, {
          operation: reply.op.permission,
          message: what,
          expected: `has_more: ${expectedMore} with total_count ${total}`,
          received: describe(reply, 200),
          exchange: reply.exchange,
        })
      check(first, total > 1, 'page 1 of size 1 has more exactly when total_count > 1')
      if (total >= 1 && total <= 10_000) {
        const last = await t.request('POST /timeseries/products', { body: { page_size: 1, page_number: total, search_params: searchParams } })
        check(last, false, 'the page holding the last row has no more')
        t.check(rowsOf(last.json).length === 1, { operation: last.op.permission, message: 'the last page (page total_count of size 1) holds one row', expected: '1 row', received: describe(last, 200), exchange: last.exchange })
        if (total >= 2) {
          const all = await t.request('POST /timeseries/products', { body: { page_size: Math.min(total, 1000), page_number: 1, search_params: searchParams } })
          t.check(rowsOf(all.json).length === Math.min(total, 1000), { operation: all.op.permission, message: 'a page as large as total_count holds total_count rows', expected: `${Math.min(total, 1000)} rows`, received: `${rowsOf(all.json).length} rows`, exchange: all.exchange })
        }
      }
    }
    const without = await t.request('POST /spark/list', { body: { page_size: 5, include_total: false } })
    if (expectSuccess(t, without, 'the spark list answers')) {
      t.check(without.json.data?.total_count === null, { operation: without.op.permission, message: 'total_count is null when include_total is false', expected: 'total_count: null', received: describe(without, 200), exchange: without.exchange })
    }
    const withTotal = await t.request('POST /spark/list', { body: { page_size: 5, include_total: true } })
    if (expectSuccess(t, withTotal, 'the spark list answers with include_total')) {
      const data = withTotal.json.data
      t.check(Number.isInteger(data?.total_count) && data.total_count >= rowsOf(withTotal.json).length && data.has_more === data.total_count > rowsOf(withTotal.json).length, {
        operation: withTotal.op.permission,
        message: 'with include_total, total_count is the count of every row and has_more agrees with it',
        expected: 'integer total_count >= rows on the page; has_more = total_count > rows on page 1',
        received: describe(withTotal, 200),
        exchange: withTotal.exchange,
      })
    }
  },
}
