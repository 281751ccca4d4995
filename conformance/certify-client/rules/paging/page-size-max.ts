import { describeRequest, graded, notExercised, pageOf } from '../../support.ts'
import type { ClientRule } from '../../types.ts'

export const pageSizeMax: ClientRule = {
  id: 'paging.page-size-max',
  title: 'No page size over the documented maximum of its listing (even where the service clamps)',
  spec: 'Limits: page sizes, sample list depth',
  level: 'MUST',
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
