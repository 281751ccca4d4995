import { describeRequest, graded, notExercised, pageOf } from '../../support.ts'
import type { ClientRule, GradedRequest } from '../../types.ts'

/** The depth cap of a paged listing (spec: Limits: 10,000 rows; 1,000 on the sample lists). */
const capOf = (r: GradedRequest): number => r.op.paging!.depthCap ?? 10_000

/** Rows down to the end of the page asked: page_number x page_size (or page_offset + page_size). */
function depthAsked(r: GradedRequest): number {
  const { page, size } = pageOf(r)!
  const offset = r.input.page_offset
  return Math.max(page * size, typeof offset === 'number' ? offset + size : 0)
}

/** A request that pages: beyond the first page, or down to a cap (or past it). A client reading only first pages shorter than the caps never meets one. */
const pages = (r: GradedRequest): boolean => r.op.paging !== undefined && (depthAsked(r) > pageOf(r)!.size || depthAsked(r) >= capOf(r))

export const depthCap: ClientRule = {
  id: 'paging.depth-cap',
  title: 'No page past a depth cap: page_number x page_size at most 10,000 (1,000 on the sample lists)',
  spec: 'Limits: pagination depth, sample list depth; Endpoints: Conventions 6',
  level: 'MUST',
  quote: ['`page_number` (page_number x page_size must not exceed 1000)', '| Pagination depth | results stop at 10,000 rows (page_number x page_size, or repeated cursor paging); narrow with filters instead |'],
  scope: 'paged listings read beyond their first page or down to a depth cap',
  situations: ['a listing deeper than its cap'],
  appliesTo: pages,
  grade({ requests }) {
    const paging = requests.filter(pages)
    const failures = paging.flatMap((r) => {
      const cap = capOf(r)
      const { page, size } = pageOf(r)!
      return depthAsked(r) > cap ? [{ message: `${describeRequest(r)} asks rows up to ${depthAsked(r)}`, expected: `page x page_size <= ${cap} (narrow with filters instead)`, received: `${page} x ${size} = ${depthAsked(r)}`, requests: [r.seq] }] : []
    })
    // The situation: the client paged a listing the twin held deeper than its cap (so paging to the end meets the cap).
    const listing = (r: GradedRequest) => `${r.canonicalId} ${r.shopId}`
    const depth = new Map<string, number>()
    for (const r of requests) if (r.op.paging && r.listingRows !== undefined) depth.set(listing(r), Math.max(depth.get(listing(r)) ?? 0, r.listingRows))
    const deep = paging.filter((r) => (depth.get(listing(r)) ?? 0) > capOf(r))
    if (!deep.length && !failures.length) {
      const shallow = [...new Set(paging.map((r) => `${r.method} ${r.path}: ${depth.get(listing(r)) ?? 'unknown'} rows, cap ${capOf(r)}`))]
      return notExercised(`the listings the client paged held no more rows than their caps (${shallow.join('; ')}), so paging to the end never met a cap`)
    }
    // The deepest page read shows how close the client came.
    const deepest = [...(deep.length ? deep : paging)].sort((a, b) => depthAsked(b) - depthAsked(a))[0]!
    return graded(failures, [deepest.seq])
  },
}
