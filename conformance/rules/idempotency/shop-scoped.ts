import { automationBody, createAutomation, idempotencyKey } from '../../resources.ts'
import { expectError, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const shopScoped: Rule = {
  id: 'idempotency.shop-scoped',
  title: 'Idempotency records are scoped to the shop: another shop of the account gets 404 for the key',
  spec: 'Idempotency',
  level: 'MUST',
  quote: ['404 when nothing stored (never made or expired). Scoped to the shop in `x-shop-id`.'],
  writes: true,
  operations: ['POST /automations/create', 'GET /idempotency/{key}'],
  async run(t) {
    const other = (await t.facts.shops()).find((s) => s.shop_id !== t.options.shopId)
    if (!other) return t.skip('the account has a single shop')
    const key = idempotencyKey(t)
    const created = await createAutomation(t, automationBody(t.name('automation')), { idempotencyKey: key })
    if (!expectSuccess(t, created, 'the write succeeds')) return
    expectSuccess(t, await t.request('GET /idempotency/{key}', { pathParams: { key } }), 'the key is found on its own shop')
    expectError(t, await t.request('GET /idempotency/{key}', { pathParams: { key }, shopId: other.shop_id }), 404, undefined, 'the key is not found on another shop')
  },
}
