import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule } from '../../types.ts'

export const retryAfter: ClientRule = {
  id: 'ratelimit.retry-after',
  title: 'After a 429 nothing is sent to that shop before its Retry-After has passed (1 s without one)',
  spec: 'Limits: request rate; Errors: 429 (back off briefly and retry)',
  level: 'SHOULD',
  quote: ['| 429 | over 10 requests per second or 1,000,000 per day per shop | back off briefly and retry |'],
  inferred: 'the spec says "back off briefly and retry" and never names a Retry-After header: waiting out Retry-After (1 s without one) is ours',
  scope: 'requests to a shop',
  situations: ['a 429'],
  appliesTo: (r) => Boolean(r.shopId),
  grade({ requests }) {
    const limited = requests.filter((r) => r.status === 429 && r.shopId)
    if (!limited.length) return notExercised('the client never got a 429')
    const failures: ClientFailure[] = []
    for (const l of limited) {
      const until = l.atMs + (l.retryAfter ?? 1) * 1000
      const early = requests.filter((r) => r.seq > l.seq && r.shopId === l.shopId && r.atMs < until)
      if (early.length) failures.push({ message: `${describeRequest(l)} (Retry-After ${l.retryAfter ?? 1} s) followed by ${early.length} request(s) to the shop within it, first ${describeRequest(early[0]!)} after ${early[0]!.atMs - l.atMs} ms`, expected: `nothing to shop ${l.shopId} for ${(l.retryAfter ?? 1) * 1000} ms`, received: `${early.length} request(s) after ${early[0]!.atMs - l.atMs} ms`, requests: [l.seq, ...early.map((r) => r.seq)] })
    }
    return graded(failures, limited.map((r) => r.seq))
  },
}
