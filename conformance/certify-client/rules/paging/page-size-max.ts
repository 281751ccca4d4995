import { describeRequest, graded, notExercised, pageOf } from '../../support.ts'
import type { ClientRule } from '../../types.ts'

export const pageSizeMax: ClientRule = {
  id: 'paging.page-size-max',
  title: 'No page size over the documented maximum of its listing (even where the service clamps)',
  spec: 'Limits: page sizes, sample list depth',
  level: 'MUST',
  quote: ['| Page sizes | slideshow list max 100; spark list max 100; campaigns list default 10, clamp 1-100; creatives list default 5, clamp 1-1000; excluded and boosted lists default 20, max 100; social campaigns, adsets, programs, program creators max 100; social ads max 1000 |', '| Sample list depth | page_number x page_size at most 1000; page_size max 100 |'],
  scope: 'paged listings',
  situations: [],
  appliesTo: (r) => r.op.paging !== undefined,
  grade({ requests }) {
    const paged = requests.filter((r) => r.op.paging)
    if (!paged.length) return notExercised('the client read no paged listing')
    const failures = paged.flatMap((r) => {
      const { size } = pageOf(r)!
      const max = r.op.paging!.max
      return size > max ? [{ message: `${describeRequest(r)} asks page_size ${size}`, expected: `at most ${max} on ${r.op.path}`, received: String(size), requests: [r.seq] }] : []
    })
    return graded(failures, paged.map((r) => r.seq).slice(0, 5))
  },
}
