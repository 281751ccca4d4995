import { describeRequest, graded, notExercised, pageOf } from '../../support.ts'
import type { ClientRule } from '../../types.ts'

export const depthCap: ClientRule = {
  id: 'paging.depth-cap',
  title: 'No page past a depth cap: page_number x page_size at most 10,000 (1,000 on the sample lists)',
  spec: 'Limits: pagination depth, sample list depth; Endpoints: Conventions 6',
  level: 'MUST',
  quote: ['`page_number` (page_number x page_size must not exceed 1000)', '| Pagination depth | results stop at 10,000 rows (page_number x page_size, or repeated cursor paging); narrow with filters instead |'],
  scope: 'paged listings',
  appliesTo: (r) => r.op.paging !== undefined,
  grade({ requests }) {
    const paged = requests.filter((r) => r.op.paging)
    if (!paged.length) return notExercised('the client read no paged listing')
    const failures = paged.flatMap((r) => {
      const { page, size } = pageOf(r)!
      const cap = r.op.paging!.depthCap ?? 10_000
      return page * size > cap ? [{ message: `${describeRequest(r)} asks rows up to ${page * size}`, expected: `page x page_size <= ${cap} (narrow with filters instead)`, received: `${page} x ${size} = ${page * size}`, requests: [r.seq] }] : []
    })
    // The deepest page read shows how close the client came.
    const deepest = [...paged].sort((a, b) => pageOf(b)!.page * pageOf(b)!.size - pageOf(a)!.page * pageOf(a)!.size)[0]!
    return graded(failures, [deepest.seq])
  },
}
