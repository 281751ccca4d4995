/** Authentication rules judged on traffic: the spec's refusals of a request without key or shop header. */
import { describeObserved, type PassiveJudge } from './types.ts'

/** spec: Authentication 1; Errors: a request without the shop header gets 400 "Missing X-Shop-Id header". */
const missingShopHeader: PassiveJudge = {
  rule: 'auth.missing-shop-header',
  judges: 'every request with a key but no x-shop-id to an operation needing the shop gets 400 "Missing X-Shop-Id header"',
  observe(o, t) {
    if (o.op.auth !== 'key+shop' || !o.x.requestHeaders['x-api-key'] || o.x.requestHeaders['x-shop-id'] !== undefined) return
    t.exercised(o)
    if (o.status !== 400 || o.error !== 'Missing X-Shop-Id header') t.fail(o, { message: 'a request without x-shop-id is refused with the spec\'s message', expected: '400 {"error": "Missing X-Shop-Id header"}', received: describeObserved(o) })
  },
}

const SHOP_ID = /^[A-Za-z0-9_-]{1,64}$/

/** spec: Errors: a malformed shop id gets 400 "Invalid shop_id". */
const invalidShopId: PassiveJudge = {
  rule: 'auth.invalid-shop-id',
  judges: 'a request whose x-shop-id is not an id (spaces, punctuation, over 64 characters) and that is refused with 400 carries "Invalid shop_id"; one that is served fails',
  observe(o, t) {
    const shop = o.x.requestHeaders['x-shop-id']
    if (o.op.auth !== 'key+shop' || shop === undefined || shop === '' || SHOP_ID.test(shop) || !o.x.requestHeaders['x-api-key']) return
    t.exercised(o)
    if (o.status !== 400 || o.error !== 'Invalid shop_id') t.fail(o, { message: 'a malformed x-shop-id is refused with the spec\'s message', expected: '400 {"error": "Invalid shop_id"}', received: describeObserved(o) })
  },
}

/** spec: Authentication 1 (401 inferred: "not shown"). */
const missingKey: PassiveJudge = {
  rule: 'auth.missing-key',
  judges: 'every request without x-api-key to an operation needing a key is refused with 401 and an {error} body',
  observe(o, t) {
    if (o.op.auth === 'none' || o.x.requestHeaders['x-api-key'] !== undefined) return
    t.exercised(o)
    if (o.status !== 401 || o.error === undefined) t.fail(o, { message: 'a request without a key is refused with 401', expected: '401 {"error": …}', received: describeObserved(o) })
  },
}

/** spec: Authentication 2: GET /health needs no key; GET /account/shops needs only the key. */
const keyOnlyRoutes: PassiveJudge = {
  rule: 'auth.key-only-routes',
  judges: 'GET /health without a key and GET /account/shops with a key but no shop header are served (2xx)',
  observe(o, t) {
    const keyOnly = o.op.auth === 'key' && o.x.requestHeaders['x-api-key'] !== undefined && o.x.requestHeaders['x-shop-id'] === undefined
    const open = o.op.auth === 'none' && o.x.requestHeaders['x-api-key'] === undefined
    if (!(keyOnly || open) || o.op.path.startsWith('/idempotency')) return
    if (o.status === 429) return
    t.exercised(o)
    if (o.status >= 300 && o.status !== 401 && o.status !== 403) t.fail(o, { message: `${o.op.permission} is served without ${open ? 'a key' : 'a shop header'}`, expected: '2xx', received: describeObserved(o) })
    if ((o.status === 401 || o.status === 403) && open) t.fail(o, { message: `${o.op.permission} needs no key`, expected: '2xx', received: describeObserved(o) })
  },
}

/**
 * spec: Authentication 3: each key may be limited to routes and shops; a call outside them gets 403.
 * The proxy does not know a key's limits, but they do not change while it watches: a key refused a
 * route on a shop (403) and served it on the same shop later (or the reverse) is not scoped as the spec says.
 */
function limitedKeyScope(): PassiveJudge {
  const seen = new Map<string, { served: boolean; seq: number }>()
  return {
    rule: 'auth.limited-key-scope',
    judges: 'a key\'s route and shop permissions hold for the whole traffic: a key refused an operation on a shop with 403 is refused it again, one served it is served again',
    observe(o, t) {
      const key = o.x.requestHeaders['x-api-key']
      if (!key || (o.status !== 403 && (o.status < 200 || o.status >= 300))) return
      const pair = `${key} ${o.x.requestHeaders['x-shop-id'] ?? ''} ${o.op.permission}`
      const served = o.status < 300
      const before = seen.get(pair)
      if (!before) {
        seen.set(pair, { served, seq: o.x.seq })
        return
      }
      t.exercised(o)
      if (before.served !== served && !(o.error ?? '').includes('plan')) {
        t.fail(o, { message: `the key was ${before.served ? 'served' : 'refused'} ${o.op.permission} on this shop (#${before.seq}) and is now ${served ? 'served' : 'refused'}`, expected: before.served ? 'served' : '403', received: describeObserved(o) })
      }
    },
  }
}

export const authJudges = (): PassiveJudge[] => [missingKey, missingShopHeader, invalidShopId, keyOnlyRoutes, limitedKeyScope()]
