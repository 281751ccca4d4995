import { typicalRequest } from '../../examples.ts'
import { describe, expectRefusal, expectSuccess, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const pageSizeLimits: Rule = {
  id: 'paging.page-size-limits',
  title: 'Page sizes: "max N" serves N and never more than N rows (N+1 refused, 400 inferred); "clamped" serves N+1 and 0 as N and 1',
  spec: 'Limits: page sizes; Sales-max ads (clamps); Sponsored-video codes; Social; Samples',
  level: 'MUST',
  quote: ['| Page sizes | slideshow list max 100; spark list max 100; campaigns list default 10, clamp 1-100; creatives list default 5, clamp 1-1000; excluded and boosted lists default 20, max 100; social campaigns, adsets, programs, program creators max 100; social ads max 1000 |'],
  writes: false,
  operations: ['POST /ads/campaigns', 'POST /ads/creatives', 'POST /ads/excluded-creatives', 'POST /ads/boosted-creatives', 'POST /spark/list', 'POST /affiliate/slideshows/list', 'POST /affiliate/samples/list', 'POST /social/campaigns'],
  async run(t) {
    // Operations with an explicit page-size bound below the general depth cap, canonical forms only.
    const bounded = t.operations().filter((op) => op.paging && op.paging.max < 10_000 && !op.aliasOf && !op.enterprise)
    for (const op of bounded) {
      const { sizeParam, max, mode } = op.paging!
      const base = typicalRequest(t.contract, op).body
      const at = await t.request(op, { body: { ...base, [sizeParam]: max } })
      expectSuccess(t, at, `${sizeParam} ${max} (the maximum) is served`)
      const over = await t.request(op, { body: { ...base, [sizeParam]: max + 1 } })
      if (mode === 'reject') {
        // spec: Limits: page sizes "max N". More than N rows breaks it; whether N+1 is refused or served as N is not shown.
        if (over.status >= 400) expectRefusal(t, over, 400, `${sizeParam} ${max + 1} is refused`, `the spec gives the maximum, not the answer past it`)
        else if (expectSuccess(t, over, `${sizeParam} ${max + 1} is refused or served as at most ${max}`)) {
          t.check(rowsOf(over.json).length <= max, { operation: op.permission, message: `${sizeParam} ${max + 1} serves at most ${max} rows`, expected: `<= ${max} rows`, received: `${rowsOf(over.json).length} rows`, exchange: over.exchange })
          t.warn({ operation: op.permission, message: `${sizeParam} ${max + 1} is served, not refused (inferred: the spec gives the maximum, not the answer past it; 400 is ours)`, expected: 'HTTP 400', received: describe(over, 200), exchange: over.exchange })
        }
        continue
      }
      for (const [asked, clamped] of [[max + 1, max], [0, 1]] as const) {
        const reply = asked === max + 1 ? over : await t.request(op, { body: { ...base, [sizeParam]: asked } })
        if (!expectSuccess(t, reply, `${sizeParam} ${asked} is clamped, not refused`)) continue
        const echoed = reply.json?.data?.[sizeParam] ?? reply.json?.[sizeParam]
        t.check(echoed === clamped, {
          operation: op.permission,
          message: `${sizeParam} ${asked} is clamped to ${clamped}`,
          expected: `${sizeParam}: ${clamped}`,
          received: describe(reply, 200),
          exchange: reply.exchange,
        })
      }
    }
  },
}
