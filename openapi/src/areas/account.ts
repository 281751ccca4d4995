/** Health, account, shop and products, and the idempotency lookup (spec: Account and shop; Idempotency). */
import type { Area } from '../document.ts'
import { bool, data, dateTime, arr, enumOf, int, nullable, num, obj, operation, ref, str, body, date } from '../dsl.ts'
import { SORT_DIRECTION_LOWER } from '../common.ts'

/** `processing` records carry no response; `completed` ones carry both fields (spec: Idempotency). */
function withCompletedOnly(schema: Record<string, unknown>): Record<string, unknown> {
  return {
    ...schema,
    if: { properties: { status: { const: 'processing' } } },
    then: { not: { anyOf: [{ required: ['response_status'] }, { required: ['response_body'] }] } },
    else: { required: ['response_status', 'response_body'] },
  }
}

export const account: Area = {
  name: 'Account',
  description: 'Health, the account\'s shops, the shop\'s SPS, products and SKUs, and idempotency lookups.',
  schemas: {
    Shop: obj(
      {
        shop_id: str(),
        shop_name: str(),
        is_active: bool({ description: 'false = paused, unpaid or cancelled.' }),
        created_at: date(),
        plan: str({ description: '`scale` is one plan value; the others are not shown.' }),
      },
      { description: 'A shop of the account (spec: Resources: Shop).' },
    ),
    Product: obj({
      product_id: str(),
      product_name: str(),
      status: num({ description: 'Meaning of the numeric values: not shown.' }),
      is_open_plan: bool(),
      price: num(),
      units_sold: num(),
      stock: num(),
    }),
    Sku: obj({
      sku_id: str(),
      sku_name: str(),
      product_id: str(),
      product_name: str(),
      price: num(),
      custom_cogs: nullable(num()),
      stock: num(),
    }),
    IdempotencyRecord: withCompletedOnly(obj(
      {
        status: enumOf(['processing', 'completed']),
        response_status: int({ description: 'Only when status is completed.' }),
        response_body: { description: 'The original response body (any JSON), only when status is completed.' },
      },
      { required: ['status'], description: 'spec: Idempotency: response_status and response_body appear only when status is completed.' },
    )),
    Health: obj(
      { status: enumOf(['ok']), time: dateTime() },
      { inferred: true, required: ['status'], description: 'GET /health reports whether the API is up; the response shape is not shown.' },
    ),
  },
  operations: [
    operation({
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      tag: 'Account',
      specSection: 'Endpoints whose shapes are incomplete or absent: Health',
      summary: 'Whether the API is up',
      description: 'Needs no key. The response shape is not shown; `{status: "ok", time}` is inferred.',
      auth: 'none',
      inferred: true,
      success: { status: 200, schema: ref('Health') },
    }),
    operation({
      method: 'get',
      path: '/account/shops',
      operationId: 'listAccountShops',
      tag: 'Account',
      specSection: 'Account and shop',
      summary: 'Every shop on the account, active or not',
      auth: 'key',
      success: { status: 200, schema: data(arr(ref('Shop'))) },
    }),
    operation({
      method: 'get',
      path: '/shop/sps',
      operationId: 'getShopSps',
      tag: 'Account',
      specSection: 'Account and shop',
      summary: 'The shop\'s SPS (0-5; below 3.5 the shop may not message creators)',
      success: { status: 200, schema: data(obj({ sps: num({ minimum: 0, maximum: 5 }) })) },
    }),
    operation({
      method: 'post',
      path: '/shop/products',
      operationId: 'listShopProducts',
      tag: 'Account',
      specSection: 'Account and shop',
      summary: 'The shop\'s products',
      requestBody: body({
        search: str({ description: 'Optional fuzzy match on product name.' }),
        is_open_plan: nullable(bool({ description: 'true open only, false non-open only, null all.' })),
        sort_by: enumOf(['price', 'units_sold'], { default: 'units_sold' }),
        sort_direction: enumOf(SORT_DIRECTION_LOWER, { default: 'desc' }),
      }),
      success: { status: 200, schema: data(arr(ref('Product'))) },
    }),
    operation({
      method: 'post',
      path: '/shop/skus',
      operationId: 'listShopSkus',
      tag: 'Account',
      specSection: 'Account and shop',
      summary: 'The shop\'s SKUs',
      requestBody: body({
        search: str({ description: 'Fuzzy on SKU or product name.' }),
        product_id: nullable(str()),
        sort_by: enumOf(['price', 'stock'], { default: 'stock' }),
        sort_direction: enumOf(SORT_DIRECTION_LOWER, { default: 'desc' }),
      }),
      success: { status: 200, schema: data(arr(ref('Sku'))) },
    }),
    operation({
      method: 'get',
      path: '/idempotency/{key}',
      operationId: 'getIdempotencyRecord',
      tag: 'Account',
      specSection: 'Idempotency',
      summary: 'The stored response of an idempotent write, scoped to the shop in x-shop-id',
      pathParams: [{ name: 'key', schema: str({ pattern: '^[A-Za-z0-9-]{1,128}$' }) }],
      errors: [400, 404],
      success: { status: 200, schema: obj({ idempotency: ref('IdempotencyRecord') }) },
    }),
  ],
}
