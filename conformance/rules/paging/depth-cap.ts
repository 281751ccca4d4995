import { typicalRequest } from '../../examples.ts'
import { describe, expectSuccess, isSuccess, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const depthCap: Rule = {
  id: 'paging.depth-cap',
  title: 'Paging stops at the depth cap: no rows past page_number x page_size 1000 on the sample lists, 10,000 elsewhere (a 400 or an empty page)',
  spec: 'Limits: pagination depth, sample list depth',
  level: 'MUST',
  quote: ['| Pagination depth | results stop at 10,000 rows (page_number x page_size, or repeated cursor paging); narrow with filters instead |', '`page_number` (page_number x page_size must not exceed 1000)'],
  writes: false,
  operations: ['POST /affiliate/samples/list', 'POST /affiliate/samples/refundable/list', 'POST /spark/list', 'POST /timeseries/products', 'POST /ads/excluded-creatives'],
  async run(t) {
    const capped = t.operations().filter((op) => op.paging?.depthCap && op.paging.pageParam && !op.aliasOf && !op.enterprise)
    for (const op of capped) {
      const { sizeParam, pageParam, max, depthCap: cap } = op.paging as Required<NonNullable<typeof op.paging>>
      const size = Math.min(100, max)
      const base = typicalRequest(t.contract, op).body
      const last = await t.request(op, { body: { ...base, [sizeParam]: size, [pageParam]: cap / size } })
      expectSuccess(t, last, `the page ending at row ${cap} is served`)
      const beyond = await t.request(op, { body: { ...base, [sizeParam]: size, [pageParam]: cap / size + 1 } })
      // spec: Limits: results stop at 10,000 rows; page_number x page_size must not exceed 1000 on the
      // sample lists. A refusal or an empty last page both stop them; the spec gives no status.
      if (beyond.status === 400) continue
      if (cap <= 1000 && beyond.status < 400) t.warn({ operation: op.permission, message: `${pageParam} x ${sizeParam} over ${cap} is not refused (inferred: the spec says the product must not exceed ${cap}, not how a request past it is answered; 400 is ours)`, expected: 'HTTP 400', received: describe(beyond, 200), exchange: beyond.exchange })
      const hasMore = beyond.json?.data?.has_more ?? beyond.json?.has_more
      t.check(isSuccess(beyond) && rowsOf(beyond.json).length === 0 && hasMore !== true, {
        operation: op.permission,
        message: `no rows past row ${cap}`,
        expected: 'HTTP 400, or an empty page with has_more not true',
        received: describe(beyond, 200),
        exchange: beyond.exchange,
      })
    }
  },
}
