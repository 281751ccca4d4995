/**
 * Paging rules judged on traffic (spec: Conventions 2-3, 6; Limits: page sizes, pagination depth):
 * what a page asked for may hold, where the depth cap stops it, and what has_more and just_count say.
 */
import { rowsOf } from '../../conformance/support.ts'
import { describeObserved, type Observed, type PassiveJudge } from './types.ts'

const success = (o: Observed) => o.status >= 200 && o.status < 300
const DEFAULT_DEPTH = 10_000

/** Page size and number asked (defaults when absent), and what the service serves for them. */
function pageOf(o: Observed) {
  const paging = o.op.paging
  if (!paging || o.op.csv && o.request.input.format === 'csv') return undefined
  const input = o.request.input
  const asked = input[paging.sizeParam]
  const page = input[paging.pageParam ?? 'page_number']
  const size = typeof asked === 'number' ? asked : (paging.defaultSize ?? 10)
  return {
    paging,
    asked: typeof asked === 'number' ? asked : undefined,
    size,
    served: paging.mode === 'clamp' ? Math.min(Math.max(size, 1), paging.max) : size,
    page: typeof page === 'number' && paging.pageParam ? page : undefined,
    cap: paging.depthCap ?? DEFAULT_DEPTH,
  }
}

const pageSizeLimits: PassiveJudge = {
  rule: 'paging.page-size-limits',
  judges: 'a page size over a "max N" is refused with 400, a "clamped" one is served as N; no page holds more rows than its (clamped) size',
  observe(o, t) {
    const p = pageOf(o)
    if (!p || o.request.input.just_count === true || [401, 403, 404, 429].includes(o.status) || o.status >= 500) return
    if (p.asked !== undefined && p.asked > p.paging.max) {
      t.exercised(o)
      if (p.paging.mode === 'reject' && o.status !== 400) t.fail(o, { message: `${p.paging.sizeParam} ${p.asked} is over its maximum ${p.paging.max} and must be refused`, expected: '400', received: describeObserved(o) })
      if (p.paging.mode === 'clamp' && !success(o)) t.fail(o, { message: `${p.paging.sizeParam} ${p.asked} is clamped to ${p.paging.max}, not refused`, expected: `2xx with at most ${p.paging.max} rows`, received: describeObserved(o) })
    }
    if (!success(o)) return
    t.exercised(o)
    // A clamped size is served as the clamp, and a list that echoes its page size echoes that (spec: Limits: "clamp 1-100").
    const body = o.json as { page_size?: unknown; data?: { page_size?: unknown } } | undefined
    const echoed = body?.data?.page_size ?? body?.page_size
    if (p.paging.mode === 'clamp' && p.asked !== undefined && typeof echoed === 'number' && echoed !== p.served) {
      t.fail(o, { message: `${p.paging.sizeParam} ${p.asked} is served clamped to ${p.served}`, expected: `page_size ${p.served}`, received: `page_size ${echoed} — ${describeObserved(o, 120)}` })
    }
    const rows = rowsOf(o.json).length
    if (rows > p.served) t.fail(o, { message: `a page of ${p.paging.sizeParam} ${p.asked ?? `${p.size} (default)`} holds at most ${p.served} rows`, expected: `<= ${p.served} rows`, received: `${rows} rows — ${describeObserved(o, 120)}` })
  },
}

const depthCap: PassiveJudge = {
  rule: 'paging.depth-cap',
  judges: 'a page past the depth cap is refused (sample lists: page_number x page_size over 1000 gets 400) or holds no row past row 10,000',
  observe(o, t) {
    const p = pageOf(o)
    if (!p || p.page === undefined || p.page * p.served <= p.cap || [401, 403, 404, 429].includes(o.status) || o.status >= 500) return
    t.exercised(o)
    if (p.cap <= 1000) {
      if (o.status !== 400) t.fail(o, { message: `${p.paging.pageParam} x ${p.paging.sizeParam} over ${p.cap} is refused`, expected: '400', received: describeObserved(o) })
      return
    }
    if (o.status === 400) return
    const lastRow = (p.page - 1) * p.served + rowsOf(o.json).length
    if (lastRow > p.cap) t.fail(o, { message: `no rows past row ${p.cap}`, expected: `rows ending at row ${p.cap} at most`, received: `rows up to row ${lastRow} — ${describeObserved(o, 120)}` })
  },
}

const hasMoreTotalCount: PassiveJudge = {
  rule: 'paging.has-more-total-count',
  judges: 'on a page with both has_more and a total_count, has_more is true exactly while rows remain after this page; the spark list\'s total_count is null unless include_total',
  observe(o, t) {
    const p = pageOf(o)
    if (!p || !success(o) || o.request.input.just_count === true) return
    const holder = o.json?.data && !Array.isArray(o.json.data) ? o.json.data : o.json
    // spec: Sponsored-video codes: include_total runs a count; without it there is none.
    if (o.op.path === '/spark/list' && o.request.input.include_total !== true && holder && 'total_count' in holder) {
      t.exercised(o)
      if (holder.total_count !== null) t.fail(o, { message: 'the spark list counts only with include_total', expected: 'total_count: null', received: `total_count: ${JSON.stringify(holder.total_count)}` })
      return
    }
    if (p.page === undefined) return
    const hasMore = holder?.has_more ?? o.json?.has_more
    const total = holder?.total_count ?? o.json?.total_count
    if (typeof hasMore !== 'boolean' || typeof total !== 'number') return
    const through = (p.page - 1) * p.served + rowsOf(o.json).length
    if (through >= p.cap) return
    t.exercised(o)
    if (hasMore !== through < total) t.fail(o, { message: `has_more says whether rows remain after row ${through} of ${total}`, expected: `has_more: ${through < total}`, received: `has_more: ${hasMore} — ${describeObserved(o, 120)}` })
  },
}

const justCount: PassiveJudge = {
  rule: 'paging.just-count',
  judges: 'a listing asked with just_count: true answers only total_count',
  observe(o, t) {
    if (o.request.input.just_count !== true || !success(o) || !o.op.paging) return
    t.exercised(o)
    const holder = o.json?.data && typeof o.json.data === 'object' && !Array.isArray(o.json.data) ? o.json.data : o.json
    const keys = Object.keys(holder ?? {})
    if (typeof holder?.total_count !== 'number' || keys.some((k) => k !== 'total_count')) t.fail(o, { message: 'just_count answers only total_count', expected: '{"data": {"total_count": N}}', received: describeObserved(o) })
  },
}

export const pagingJudges = (): PassiveJudge[] => [depthCap, hasMoreTotalCount, justCount, pageSizeLimits]
