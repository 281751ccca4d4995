/**
 * What `defineHandler` tells an area author (mock/context.ts; issue 16: typed handlers), checked by
 * `tsc --noEmit` in `npm test`. Each `@ts-expect-error` fails the type check if the typing loosens.
 */
import { defineHandler } from '../../mock/context.ts'
import type { ShopRecord } from '../../mock/world.ts'

export const typedHandlers = [
  defineHandler('updateDashboard', (ctx) => {
    // The body as the contract types it.
    const id: string = ctx.input.dashboard_id
    const expected: string | undefined = ctx.input.expected_updated_at
    // @ts-expect-error not a field of the update body
    void ctx.input.no_such_field
    // @ts-expect-error dashboard_id is a string
    const wrong: number = ctx.input.dashboard_id
    // A shop-scoped operation: the pipeline resolved the shop, so it is not optional.
    const shop: ShopRecord = ctx.shop
    return { status: 200, body: { id, expected, wrong, shop } }
  }),
  defineHandler('getShopSps', (ctx) => {
    // An operation without a body or query: no input fields (not `unknown`, which would refuse every helper).
    // @ts-expect-error GET /shop/sps takes no input
    void ctx.input.sps
    return { status: 200, body: { sps: ctx.shop.sps } }
  }),
  // A body whose schema says "creator_id or handle" (anyOf of required lists) is still typed: the
  // generator reads the document without presence-only anyOf branches (openapi/build.ts typeView).
  defineHandler('sendCreatorDm', (ctx) => {
    const creator: string | undefined = ctx.input.creator_id
    // @ts-expect-error message is a string
    const message: number = ctx.input.message
    return { status: 200, body: { creator, message } }
  }),
  defineHandler('listAdCampaigns', (ctx) => {
    const from: string | undefined = ctx.input.date_range?.from
    // An operation with x-paging: the paging step has set the page window.
    const offset: number = ctx.page.offset
    return { status: 200, body: { from, offset } }
  }),
  defineHandler('getShopStats', (ctx) => {
    // No x-paging: no page window.
    // @ts-expect-error ctx.page is undefined on an operation without x-paging
    const offset: number = ctx.page.offset
    return { status: 200, body: { offset } }
  }),
  defineHandler('listAccountShops', (ctx) => {
    // GET /account/shops takes the key only: no shop.
    // @ts-expect-error ctx.shop may be undefined on an operation without x-shop-id
    const shop: ShopRecord = ctx.shop
    return { status: 200, body: { shop } }
  }),
]

// @ts-expect-error not an operationId of the contract
defineHandler('noSuchOperation', () => ({ status: 200, body: {} }))
