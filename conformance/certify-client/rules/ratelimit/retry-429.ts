import { describeRequest, graded, notExercised, sameWrite } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

export const retry429: ClientRule = {
  id: 'ratelimit.retry-429',
  title: 'A request refused with 429 is retried, later (back off briefly and retry)',
  spec: 'Errors: 429 (back off briefly and retry); Limits: request rate',
  level: 'MUST',
  quote: ['| 429 | over 10 requests per second or 1,000,000 per day per shop | back off briefly and retry |'],
  scope: 'requests to a shop',
  situations: ['a 429'],
  appliesTo: (r) => Boolean(r.shopId),
  grade({ requests }) {
    const limited = requests.filter((r) => r.status === 429 && r.shopId)
    if (!limited.length) return notExercised('the client never got a 429')
    const failures: ClientFailure[] = []
    const evidence: number[] = []
    for (const l of limited) {
      // The same request again: same operation, shop, query and body.
      const retry = requests.find((r) => r.seq > l.seq && sameWrite(r, l) && r.query === l.query)
      evidence.push(l.seq, ...(retry ? [retry.seq] : []))
      if (!retry) failures.push({ message: `${describeRequest(l)} was never retried`, expected: 'the same request again, after backing off', received: 'no retry', requests: [l.seq] })
      // How long "briefly" is, the spec does not say (ratelimit.retry-after judges Retry-After): not at once is what it says.
      else if (retry.atMs <= l.atMs) failures.push({ message: `${describeRequest(l)} retried at once as ${describeRequest(retry)}`, expected: 'a retry after backing off', received: `${retry.atMs - l.atMs} ms later`, requests: [l.seq, retry.seq] })
    }
    return graded(failures, evidence)
  },
}
