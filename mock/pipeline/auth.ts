/**
 * Authentication, permissions, tier and plan gates (spec: Authentication; Errors).
 */
import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import type { Step } from './compose.ts'
import { authNotNeeded, authPassed, authRefused } from '../trace/decisions.ts'

// The spec does not show the id format; the mock's shop ids are UUIDs (inferred, see the ShopId parameter).
const SHOP_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const MESSAGES = {
  missingKey: messages.missingApiKey,
  unknownKey: messages.invalidApiKey,
  missingShop: messages.missingShopHeader,
  invalidShop: messages.invalidShopId,
  shopNotOwned: messages.shopNotOwned,
  notPaid: messages.notOnPaidPlan,
  needsScale: messages.needsScalePlan,
  needsEnterprise: messages.needsEnterprisePlan,
  route: messages.routeForbidden,
  shop: messages.shopForbidden,
} as const

/** Who is calling, for which shop, and may they: sets `ctx.apiKey` and `ctx.shop`. */
export const auth = (): Step =>
  function auth(ctx, next) {
    const { calledOp: op, op: canonical } = ctx
    // spec: Authentication 2: GET /health needs no key.
    if (op.auth === 'none') {
      ctx.trace?.decide(authNotNeeded)
      return next()
    }
    const world = ctx.state.world
    // A connector call (mock/connector) carries its connection's grant as the key: no header to read.
    let apiKey = ctx.apiKey
    if (!apiKey) {
      const key = ctx.headers.get('x-api-key')
      // spec: Errors: the status for a missing or invalid key is not shown; 401 is inferred.
      if (!key) throw authRefused(ctx, 'key', apiError(401, MESSAGES.missingKey))
      apiKey = world.apiKeys.find((k) => k.key === key)
      if (!apiKey) throw authRefused(ctx, 'key', apiError(401, MESSAGES.unknownKey))
      ctx.apiKey = apiKey
    }

    if (op.auth === 'key+shop') {
      const shopId = ctx.headers.get('x-shop-id')
      if (shopId === null || shopId.trim() === '') throw authRefused(ctx, 'shop-header', apiError(400, MESSAGES.missingShop))
      if (!SHOP_ID.test(shopId.trim())) throw authRefused(ctx, 'shop-header', apiError(400, MESSAGES.invalidShop))
    }

    // spec: Authentication 3: a call outside the key's routes returns 403. An alias is allowed by
    // its own permission or by its canonical operation's.
    if (apiKey.routes !== '*' && !apiKey.routes.includes(op.permission) && !apiKey.routes.includes(canonical.permission)) {
      throw authRefused(ctx, 'route', apiError(403, MESSAGES.route(op.permission)))
    }
    // spec: Authentication 4: a standard key is refused by Enterprise endpoints.
    if ((op.enterprise || canonical.enterprise) && apiKey.tier !== 'enterprise') throw authRefused(ctx, 'tier', apiError(403, MESSAGES.needsEnterprise))

    if (op.auth === 'key+shop') {
      const shopId = ctx.headers.get('x-shop-id')!.trim().toLowerCase()
      const shop = world.shops.find((s) => s.shop_id.toLowerCase() === shopId)
      // Another account's shop and an unknown id look the same: nothing of it is visible.
      if (!shop) throw authRefused(ctx, 'shop', apiError(403, MESSAGES.shopNotOwned))
      if (apiKey.shops !== '*' && !apiKey.shops.includes(shop.shop_id)) throw authRefused(ctx, 'shop', apiError(403, MESSAGES.shop))
      const gate = op.planGate ?? canonical.planGate
      // spec: Authentication 5: a shop not on an active paid plan gets 403 from the ads endpoints.
      if (gate === 'active-paid' && !shop.is_active) throw authRefused(ctx, 'plan-paid', apiError(403, MESSAGES.notPaid))
      // spec: What the service does: workflows toggle, briefs and community campaigns need the Scale plan.
      if (gate === 'scale' && (shop.plan !== 'scale' || !shop.is_active)) throw authRefused(ctx, 'plan-scale', apiError(403, MESSAGES.needsScale))
      ctx.shop = shop
    }
    ctx.trace?.decide(authPassed, ctx.apiKey, ctx.shop)
    return next()
  }
