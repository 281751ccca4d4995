import { describeRequest, graded, notExercised } from '../../support.ts'
import type { ClientFailure, ClientRule, GradedRequest } from '../../types.ts'

export const PER_SECOND = 10

export const pace: ClientRule = {
  id: 'ratelimit.pace',
  title: 'At most 10 requests per second per key and shop, over any one-second window',
  spec: 'Limits: request rate (10 per second per key, measured per shop)',
  level: 'MUST',
  quote: ['| Request rate | 10 per second and 1,000,000 per day per key, measured per shop; excess gets 429 |'],
  scope: 'requests with a key and a shop',
  situations: [],
  appliesTo: (r) => r.keyId !== null && Boolean(r.shopId),
  grade({ requests }) {
    const pairs = new Map<string, GradedRequest[]>()
    for (const r of requests) {
      if (r.keyId === null || !r.shopId) continue
      const key = `${r.keyId} ${r.shopId}`
      // Appended in place (a copy per request made a window of n requests cost n² / 2 copies).
      const list = pairs.get(key)
      if (list) list.push(r)
      else pairs.set(key, [r])
    }
    if (!pairs.size) return notExercised('no request with a key and a shop')
    const failures: ClientFailure[] = []
    for (const [pair, list] of pairs) {
      const sorted = [...list].sort((a, b) => a.atMs - b.atMs || a.seq - b.seq)
      let start = 0
      // The worst window's bounds, sliced once (a slice per new maximum cost n² / 2 on a steady stream).
      let worstStart = 0
      let worstLength = 0
      for (let end = 0; end < sorted.length; end++) {
        // The window (t - 1 s, t]: requests a full second apart are in different windows.
        while (sorted[end]!.atMs - sorted[start]!.atMs >= 1000) start++
        if (end - start + 1 > Math.max(PER_SECOND, worstLength)) {
          worstStart = start
          worstLength = end - start + 1
        }
      }
      const worst = sorted.slice(worstStart, worstStart + worstLength)
      if (worst.length > PER_SECOND) {
        failures.push({ message: `${worst.length} requests within ${worst[worst.length - 1]!.atMs - worst[0]!.atMs} ms for ${pair.split(' ')[0]} on shop ${pair.split(' ')[1]}, from ${describeRequest(worst[0]!)}`, expected: `at most ${PER_SECOND} in any one-second window`, received: `${worst.length}`, requests: worst.map((r) => r.seq) })
      }
    }
    return graded(failures, [...pairs.values()].flatMap((l) => l.slice(0, 3).map((r) => r.seq)))
  },
}
