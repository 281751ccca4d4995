import { graded, isScoped, notExercised, pageOf } from '../../support.ts'
import type { ClientRule } from '../../types.ts'

export const scopedReads: ClientRule = {
  id: 'limits.scoped-reads',
  title: 'Reads are scoped by filters or date ranges: a listing is not scanned whole again without them',
  spec: 'Limits (guidance: scope reads by filters and fetch only changed records; the API is not meant to mirror a whole dataset)',
  level: 'SHOULD',
  quote: ['Guidance: scope reads by filters (dates, status, handles, ids) and fetch only changed records on later syncs; the API is not meant to mirror a whole dataset.'],
  inferred: 'guidance, not a requirement; two whole unfiltered scans of one listing as the threshold is ours',
  scope: 'paged listings',
  situations: [],
  appliesTo: (r) => r.op.paging !== undefined,
  grade({ requests }) {
    const paged = requests.filter((r) => r.op.paging && r.status < 400)
    // A scan: page 1 of a listing without any narrowing, followed by its page 2.
    const scans = new Map<string, number[][]>()
    let multiPage = false
    for (const r of paged) {
      const { page } = pageOf(r)!
      if (page > 1) multiPage = true
      if (isScoped(r.input)) continue
      const listing = `${r.canonicalId} ${r.shopId}`
      const list = scans.get(listing) ?? []
      scans.set(listing, list)
      if (page === 1) list.push([r.seq])
      else if (page === 2 && list.length && list[list.length - 1]!.length === 1) list[list.length - 1]!.push(r.seq)
    }
    if (!multiPage) return notExercised('the client read no listing beyond its first page')
    const failures = [...scans].flatMap(([listing, runs]) => {
      const full = runs.filter((run) => run.length === 2)
      const [op, shop] = listing.split(' ')
      return full.length >= 2 ? [{ message: `${op} scanned whole ${full.length} times on shop ${shop} without filters or a date range`, expected: 'later syncs narrowed by filters, ids or dates', received: `${full.length} unfiltered scans starting at #${full.map((run) => run[0]).join(', #')}`, requests: full.flat() }] : []
    })
    return graded(failures, [...scans.values()].flat(2).slice(0, 10))
  },
}
