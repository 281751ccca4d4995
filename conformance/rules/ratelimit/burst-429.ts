import { describe, errorMessage, isSuccess } from '../../support.ts'
import { retryAfterSeconds } from '../../client.ts'
import type { Rule } from '../../types.ts'

/** More than the documented 10 per second, sent at once. */
const BURST = 25

export const burst429: Rule = {
  id: 'ratelimit.burst-429',
  title: 'Over 10 requests per second for a key and shop get 429 with an {error} body; after the window requests succeed again',
  spec: 'Limits: request rate; Errors: 429',
  level: 'MUST',
  quote: ['| 429 | over 10 requests per second or 1,000,000 per day per shop | back off briefly and retry |', 'Error bodies are JSON `{error: <message string>}`.'],
  writes: false,
  operations: ['GET /shop/sps'],
  timeoutSeconds: 90,
  async run(t) {
    // The one place the suite goes over the limit: one burst, then it waits for the window to pass.
    await t.quiet()
    const replies = await Promise.all(Array.from({ length: BURST }, () => t.request('GET /shop/sps', { unthrottled: true })))
    const limited = replies.filter((r) => r.status === 429)
    if (!t.check(limited.length > 0, { operation: 'GET /shop/sps', message: `a burst of ${BURST} simultaneous requests gets 429 for the excess`, expected: 'at least one HTTP 429', received: replies.map((r) => r.status).join(', ') })) {
      return
    }
    for (const reply of limited.slice(0, 3)) {
      t.check(errorMessage(reply) !== undefined, { operation: reply.op.permission, message: '429 has an {error} body', expected: 'HTTP 429 {"error": …}', received: describe(reply), exchange: reply.exchange })
    }
    t.check(replies.filter(isSuccess).length >= 1, { operation: 'GET /shop/sps', message: 'the requests within the limit succeed', expected: 'some HTTP 200 in the burst', received: replies.map((r) => r.status).join(', ') })
    const retryAfter = limited[0].headers.get('retry-after')
    if (retryAfter === null) {
      t.warn({ operation: 'GET /shop/sps', message: '429 carries a Retry-After header (inferred)', expected: 'Retry-After: <seconds>', received: 'no Retry-After', exchange: limited[0].exchange })
    }
    const wait = Math.min(60, Math.max(1, retryAfterSeconds(retryAfter))) * 1000 + 250
    await t.sleep(wait)
    const after = await t.request('GET /shop/sps', { unthrottled: true })
    t.check(isSuccess(after), { operation: after.op.permission, message: 'after the window a request succeeds', expected: 'HTTP 200', received: describe(after), exchange: after.exchange })
    // Let the next rules start from an empty window.
    await t.sleep(1100)
  },
}
