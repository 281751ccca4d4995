/** Account, shop and idempotency-lookup routes (spec: Account and shop; Idempotency; Endpoints: Health). */
import { apiError } from '../errors.ts'
import { IDEMPOTENCY_KEY } from '../pipeline.ts'
import { ACCOUNTS, PRODUCTS, SHOPS, SPS } from '../world.ts'
import type { Define, SpecState } from '../index.ts'

export function accountRoutes(define: Define, state: SpecState): void {
  // spec: "GET /health needs no key and reports whether the API is up. Response shape: not shown."
  define('GET', '/health', { shop: false, public: true }, (c) => c.json({ data: { status: 'ok' } }))

  // spec: "Returns {data: Shop[]} for every shop on the account, active or not"; a key limited to shops sees its own.
  define('GET', '/account/shops', { shop: false }, (c) => {
    const key = c.get('key')
    const shops = (ACCOUNTS[key.account] ?? []).filter((s) => !key.shops || key.shops.includes(s.shop_id))
    return c.json({ data: shops })
  })

  define('GET', '/shop/sps', { shop: true }, (c) => c.json({ data: { sps: SPS[c.get('shop').shop_id] ?? 0 } }))

  define('POST', '/shop/products', { shop: true }, (c) => {
    const body = c.get('body')
    const sortBy = body.sort_by ?? 'units_sold'
    const direction = body.sort_direction ?? 'desc'
    if (sortBy !== 'price' && sortBy !== 'units_sold') throw apiError(400, 'sort_by must be price or units_sold')
    if (direction !== 'asc' && direction !== 'desc') throw apiError(400, 'sort_direction must be asc or desc')
    if (body.is_open_plan !== undefined && body.is_open_plan !== null && typeof body.is_open_plan !== 'boolean') throw apiError(400, 'is_open_plan must be a boolean or null')
    const search = typeof body.search === 'string' ? body.search.trim().toLowerCase() : ''
    const products = (c.get('shop').shop_id === SHOPS.scale.shop_id ? PRODUCTS : [])
      .filter((p) => (typeof body.is_open_plan === 'boolean' ? p.is_open_plan === body.is_open_plan : true))
      .filter((p) => !search || p.product_name.toLowerCase().includes(search))
      .sort((a, b) => (direction === 'asc' ? 1 : -1) * (a[sortBy as 'price'] - b[sortBy as 'price']))
    return c.json({ data: products })
  })

  // spec: Idempotency: GET /idempotency/{key}, "Scoped to the shop in x-shop-id".
  define('GET', '/idempotency/{key}', { shop: true }, (c) => {
    const key = c.req.param('key') ?? ''
    if (!IDEMPOTENCY_KEY.test(key)) throw apiError(400, 'Invalid idempotency key format')
    const record = state.idempotency.get(c.get('shop').shop_id, key)
    if (!record) throw apiError(404, 'No stored response for that key')
    if (record.status === 'processing') return c.json({ idempotency: { status: 'processing' } })
    return c.json({ idempotency: { status: 'completed', response_status: record.responseStatus, response_body: JSON.parse(record.responseBody) } })
  })
}
