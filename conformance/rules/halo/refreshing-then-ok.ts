import { describe, expectSuccess, recentRange } from '../../support.ts'
import type { Reply, Rule } from '../../types.ts'

const PLATFORMS = ['storefront', 'marketplace'] as const
const STATUSES = ['ok', 'refreshing', 'not_linked', 'error']

export const refreshingThenOk: Rule = {
  id: 'halo.refreshing-then-ok',
  title: 'A connected platform block has a status; a refreshing storefront carries refresh_started_at; later calls return ok once built (the bound is inferred: a warning)',
  spec: 'States and transitions: Halo platform block refreshing; Off-platform sales correlation',
  level: 'MUST',
  quote: ['No snapshot exists for the store: the first report call starts a refresh and returns this status; later calls return `ok` once built.', '`status` (`ok`, `refreshing`, `not_linked`, `error`; absent when not connected)', 'Storefront also has `snapshot_from`, `snapshot_to`, `refreshed_at`, `store` and, while building, `refresh_started_at`.'],
  writes: false,
  operations: ['POST /halo-effect'],
  async run(t) {
    const body = { date_range: recentRange(30) }
    const statusOf = (reply: Reply, platform: string): string | undefined => reply.json?.data?.platforms?.[platform]?.status
    const refreshing = (reply: Reply) => PLATFORMS.some((p) => statusOf(reply, p) === 'refreshing')
    // The configured shop first, then the account's other active shops: the transition shows only
    // on a store without a snapshot, and the halo report is a read (it starts a build, changes nothing).
    const others = (await t.facts.shops()).filter((s) => s.is_active && s.shop_id !== t.options.shopId).map((s) => s.shop_id)
    let found: { shopId: string; reply: Reply } | undefined
    let anyConnected = false
    for (const shopId of [t.options.shopId, ...others]) {
      const reply = await t.request('POST /halo-effect', { body, shopId })
      if (!expectSuccess(t, reply, 'the halo report is served')) return
      for (const platform of PLATFORMS.filter((p) => reply.json.data?.platforms?.[p]?.connected === true)) {
        anyConnected = true
        const status = statusOf(reply, platform)
        t.check(STATUSES.includes(status ?? ''), { operation: reply.op.permission, message: `a connected ${platform} block has a status`, expected: STATUSES.join(', '), received: String(status), exchange: reply.exchange })
      }
      if (refreshing(reply)) {
        found = { shopId, reply }
        break
      }
    }
    if (!anyConnected) return t.skip('no off-platform store is connected to the account\'s shops')
    if (!found) {
      return t.warn({ operation: 'POST /halo-effect', message: 'no block was refreshing on any shop: the refreshing → ok transition was not observable (snapshots exist)', expected: 'a first report on a store without a snapshot', received: 'ok on the first call' })
    }
    const storefrontOrMarketplace = (r: typeof reply) => PLATFORMS.filter((p) => statusOf(r, p) === 'refreshing').join(' and ') || 'report'
    let { reply } = found
    const deadline = Date.now() + t.options.haloBoundSeconds * 1000
    while (refreshing(reply)) {
      const storefront = reply.json.data.platforms.storefront
      if (storefront?.status === 'refreshing') {
        t.check(typeof storefront.refresh_started_at === 'string', { operation: reply.op.permission, message: 'a refreshing storefront block has refresh_started_at', expected: 'refresh_started_at: <timestamp>', received: describe(reply, 400), exchange: reply.exchange })
      }
      if (Date.now() > deadline) {
        // spec: later calls return ok once built; how long a build takes is not shown.
        return t.warn({
          operation: reply.op.permission,
          message: `the platform block did not leave refreshing within ${t.options.haloBoundSeconds} s (inferred: the spec gives no build time; the bound is --halo-bound)`,
          expected: 'status ok (or not_linked/error) on a later call',
          received: describe(reply, 400),
          exchange: reply.exchange,
        })
      }
      const waited = Math.round((Date.now() - (deadline - t.options.haloBoundSeconds * 1000)) / 1000)
      t.progress(`waiting for the ${storefrontOrMarketplace(reply)} build, ${waited} s of ${t.options.haloBoundSeconds} s`)
      await t.sleep(Math.min(2000, t.options.haloBoundSeconds * 250))
      reply = await t.request('POST /halo-effect', { body, shopId: found.shopId })
      if (!expectSuccess(t, reply, 'the halo report is served while refreshing')) return
    }
    const after = PLATFORMS.map((p) => statusOf(reply, p)).filter(Boolean)
    t.check(after.every((s) => STATUSES.includes(s!)), { operation: reply.op.permission, message: 'the built block has a documented status', expected: STATUSES.join(', '), received: after.join(', '), exchange: reply.exchange })
  },
}
