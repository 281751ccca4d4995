import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { components } from '../openapi/types.ts'
import {
  OPEN_SAMPLE_STATUSES,
  REGIONS,
  SAMPLE_STATUSES,
  STAT_KEYS,
  countEvents,
  createWorld,
  sampleStage,
  shopLastDay,
  buildLookups,
  worldToCollections,
  type AdDeliveryStatus,
  type FactTable,
  type Region,
  type SampleStatus,
  type ShopData,
  type World,
} from '../fixtures/index.ts'
import { writeWorldFiles } from '../fixtures/export.ts'

const TODAY = '2026-11-20'
const SEEDS = [1, 42, 987654321]
const cache = new Map<number, World>()
const worldFor = (seed: number): World => {
  let w = cache.get(seed)
  if (!w) cache.set(seed, (w = createWorld({ seed, scale: 'small', today: TODAY })))
  return w
}
const shopsOf = (w: World): ShopData[] => w.shops.map((s) => w.shopData[s.shop_id]!)
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const EPS = 1e-6

function expectUnique(values: readonly unknown[], what: string) {
  const seen = new Set<unknown>()
  const dupes = values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)))
  expect(dupes, `${what} must be unique`).toEqual([])
}

describe('fixtures: determinism', () => {
  it('createWorld: the same seed and today serialize identically, byte for byte', () => {
    const a = JSON.stringify(worldToCollections(createWorld({ seed: 7, scale: 'small', today: TODAY })))
    const b = JSON.stringify(worldToCollections(createWorld({ seed: 7, scale: 'small', today: TODAY })))
    expect(a).toBe(b)
  })
  it('createWorld: different seeds give different worlds', () => {
    const a = JSON.stringify(worldToCollections(worldFor(1)))
    const b = JSON.stringify(worldToCollections(worldFor(42)))
    expect(a).not.toBe(b)
  })
  it('createWorld: today moves the day axis and is required to be a calendar date', () => {
    const w = createWorld({ seed: 1, scale: 'small', today: '2026-06-01' })
    expect(w.axis.today).toBe('2026-06-01')
    expect(() => createWorld({ seed: 1, scale: 'small', today: '2026/06/01' })).toThrow(/YYYY-MM-DD/)
  })
  it('createWorld: an unknown scale is refused with the scale names', () => {
    expect(() => createWorld({ seed: 1, scale: 'huge' as never, today: TODAY })).toThrow(/small, default or large/)
  })
  it('createWorld: areas draw from their own sub-seeds (the creator index does not depend on the shops)', () => {
    const w = worldFor(1)
    const again = createWorld({ seed: 1, scale: 'small', today: '2026-06-01' })
    expect(again.creators.map((c) => c.handle)).toEqual(w.creators.map((c) => c.handle))
  })
})

describe('fixtures: account, shops and keys (spec: Authentication, Resources: Shop)', () => {
  it.each(SEEDS)('the demo keys are the same fixed values for every seed (seed %i)', (seed) => {
    const w = worldFor(seed)
    expect(w.apiKeys.map(({ label: _label, ...k }) => k)).toEqual([
      { key: 'demo-key', tier: 'standard', routes: '*', shops: '*' },
      { key: 'demo-enterprise-key', tier: 'enterprise', routes: '*', shops: '*' },
      { key: 'demo-limited-key', tier: 'standard', routes: ['POST /shop/products', 'GET /shop/sps', 'POST /shop/skus', 'GET /account/shops'], shops: [w.shops[0]!.shop_id] },
    ])
  })
  it.each(SEEDS)('shops: a scale shop first, a lower plan, an SPS-restricted shop and an inactive one (seed %i)', (seed) => {
    const [main, lower, restricted, inactive] = worldFor(seed).shops
    expect(main).toMatchObject({ plan: 'scale', is_active: true })
    expect(main!.sps).toBeGreaterThanOrEqual(3.5)
    expect(lower!.is_active).toBe(true)
    expect(lower!.plan).not.toBe('scale')
    expect(restricted!.is_active).toBe(true)
    expect(restricted!.sps).toBeLessThan(3.5)
    expect(inactive!.is_active).toBe(false)
    for (const shop of worldFor(seed).shops) {
      expect(shop.shop_id).toMatch(UUID_V4)
      expect(shop.created_at).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(() => new Intl.DateTimeFormat('en-US', { timeZone: shop.timezone })).not.toThrow()
      expect(shop.account_id).toBe(worldFor(seed).account.account_id)
      expect(shop.sps).toBeGreaterThanOrEqual(0)
      expect(shop.sps).toBeLessThanOrEqual(5)
    }
  })
  it.each(SEEDS)('foreign shops belong to another account and are not among the account shops (seed %i)', (seed) => {
    const w = worldFor(seed)
    expect(w.foreignShops.length).toBeGreaterThanOrEqual(1)
    for (const f of w.foreignShops) {
      expect(f.account_id).not.toBe(w.account.account_id)
      expect(w.shopData[f.shop_id]).toBeUndefined()
      expect(f.shop_id).toMatch(UUID_V4)
    }
  })
})

describe.each(SEEDS)('fixtures invariants (seed %i)', (seed) => {
  const w = worldFor(seed)
  const shops = shopsOf(w)
  const creatorById = new Map(w.creators.map((c) => [c.creator_id, c]))

  it('ids are unique: shops, creators, handles, products, SKUs, content, samples, ads, social, dashboards', () => {
    expectUnique([...w.shops, ...w.foreignShops].map((s) => s.shop_id), 'shop ids')
    expectUnique(w.creators.map((c) => c.creator_id), 'creator ids')
    expectUnique(w.creators.map((c) => c.creator_oecuid), 'creator oecuids')
    expectUnique(w.creators.map((c) => c.handle), 'handles')
    const all = (pick: (d: ShopData) => readonly string[]) => shops.flatMap(pick)
    expectUnique(all((d) => d.products.map((p) => p.product_id)), 'product ids')
    expectUnique(all((d) => d.skus.map((s) => s.sku_id)), 'sku ids')
    expectUnique(all((d) => [...d.videos, ...d.slideshows].map((v) => v.video_id)), 'video and slideshow ids')
    expectUnique(all((d) => d.lives.map((l) => l.live_id)), 'live ids')
    expectUnique(all((d) => [...d.sampleRequests, ...d.refundableSamples].map((r) => r.apply_id)), 'apply ids')
    expectUnique(all((d) => d.sparkCodes.map((s) => s.spark_code)), 'spark codes')
    expectUnique(all((d) => d.campaigns.map((c) => c.campaign_id)), 'sales-max campaign ids')
    for (const d of shops) {
      expectUnique(d.affiliates.map((a) => a.creator_id), 'CRM creators of a shop')
      expectUnique(d.creatives.map((c) => `${c.campaign_id}/${c.video_id}`), 'creatives per campaign and video')
      expectUnique(d.boostSessions.map((b) => b.session_id), 'boost session ids')
      expectUnique(d.programs.map((p) => p.program_id), 'program ids')
      expectUnique(d.socialAds.map((a) => a.ad_id), 'social ad ids')
      expectUnique(d.stores.map((s) => s.store_id), 'store ids')
      expectUnique(d.lists.map((l) => l.title), 'list titles')
      expectUnique([...d.dashboards.boards.map((b) => b.id), ...d.dashboards.boards.flatMap((b) => b.widgets.map((x) => x.id))], 'dashboard and widget ids')
      expectUnique(d.dashboards.templates.map((t) => t.seed_key), 'default board seed keys')
    }
  })

  it('handles follow the list rules: lowercase [a-z0-9._], at most 30 characters', () => {
    for (const c of w.creators) expect(c.handle).toMatch(/^[a-z0-9._]{1,30}$/)
  })

  it('every foreign key resolves', () => {
    for (const d of shops) {
      const productIds = new Set(d.products.map((p) => p.product_id))
      const skuById = new Map(d.skus.map((s) => [s.sku_id, s]))
      const crm = new Set(d.affiliates.map((a) => a.creator_id))
      const videoById = new Map(d.videos.map((v) => [v.video_id, v]))
      const campaignIds = new Set(d.affiliateCampaigns.map((c) => c.campaign_id))
      const adCampaignIds = new Set(d.campaigns.map((c) => c.campaign_id))
      for (const a of d.affiliates) {
        expect(w.creators[a.creator_index]!.creator_id).toBe(a.creator_id)
        expect(a.handle).toBe(w.creators[a.creator_index]!.handle)
        expect(a.shop_id).toBe(d.shop.shop_id)
      }
      for (const s of d.skus) expect(productIds.has(s.product_id)).toBe(true)
      for (const c of d.affiliateCampaigns) for (const p of c.product_ids) expect(productIds.has(p)).toBe(true)
      for (const v of [...d.videos, ...d.slideshows]) {
        if (!v.is_brand) expect(crm.has(v.creator_id)).toBe(true)
        for (const p of v.products) expect(productIds.has(p)).toBe(true)
        expect(v.products).toContain(v.product)
        if (v.campaign_id) expect(campaignIds.has(v.campaign_id)).toBe(true)
      }
      for (const l of d.lives) {
        expect(crm.has(l.creator_id)).toBe(true)
        for (const p of l.products) expect(productIds.has(p)).toBe(true)
        expect(l.products_stats.map((x) => x.product_id)).toEqual(l.products)
      }
      for (const s of d.sparkCodes) if (s.video_id) expect(videoById.has(s.video_id)).toBe(true)
      for (const c of d.creatives) {
        expect(videoById.has(c.video_id)).toBe(true)
        expect(adCampaignIds.has(c.campaign_id)).toBe(true)
        if (c.product_id) expect(productIds.has(c.product_id)).toBe(true)
      }
      for (const x of [...d.exclusions, ...d.boostSessions]) {
        expect(videoById.has(x.video_id)).toBe(true)
        expect(adCampaignIds.has(x.campaign_id)).toBe(true)
      }
      for (const r of d.sampleRequests) {
        expect(creatorById.has(r.creator_id)).toBe(true)
        expect(creatorById.get(r.creator_id)!.handle).toBe(r.handle)
        expect(productIds.has(r.sampled_product)).toBe(true)
        expect(skuById.get(r.sku_id)?.product_id).toBe(r.sampled_product)
        if (r.campaign_id) expect(campaignIds.has(r.campaign_id)).toBe(true)
        if (r.posted_video_id) expect(videoById.get(r.posted_video_id)?.sample_apply_id).toBe(r.apply_id)
      }
      for (const r of d.refundableSamples) {
        expect(crm.has(r.creator_id)).toBe(true)
        expect(skuById.get(r.sku_id)?.product_id).toBe(r.sampled_product)
      }
      const programIds = new Set(d.programs.map((p) => p.program_id))
      for (const m of d.programCreators) expect(programIds.has(m.program_id)).toBe(true)
      const adsets = new Map(d.socialAdsets.map((a) => [a.adset_id, a]))
      for (const ad of d.socialAds) {
        expect(adsets.get(ad.adset_id)?.campaign_id).toBe(ad.campaign_id)
        if (ad.program_id) expect(programIds.has(ad.program_id)).toBe(true)
        expect(videoById.has(ad.video_id)).toBe(true)
      }
      for (const s of d.stores) for (const l of s.links) expect(productIds.has(l.platform_product_id)).toBe(true)
      const groupIds = new Set(d.groups.map((g) => g.group_id))
      const listTitles = new Set(d.lists.map((l) => l.title))
      for (const a of d.automations) {
        if (a.outreach_audience.type === 'groups') expect(groupIds.has(a.outreach_audience.group_id ?? '')).toBe(true)
        if (a.outreach_audience.type === 'list') expect(listTitles.has(a.outreach_audience.list ?? '')).toBe(true)
      }
      for (const l of d.lists) for (const h of l.handles) expect(w.creators.some((c) => c.handle === h)).toBe(true)
      for (const i of d.events.creator) expect(w.creators[i]).toBeDefined()
      for (const b of d.dashboards.boards) {
        expect(w.shopData[b.home_shop_id]).toBeDefined()
        for (const s of b.shared_with) expect(w.shopData[s]).toBeDefined()
        for (const p of b.default_product_ids) expect(w.shopData[b.home_shop_id]!.products.some((x) => x.product_id === p)).toBe(true)
      }
      // Fact tables are keyed by the records' own ids, in record order.
      expect(d.facts.affiliates.entityIds).toEqual(d.affiliates.map((a) => a.creator_id))
      expect(d.facts.products.entityIds).toEqual(d.products.map((p) => p.product_id))
      expect(d.facts.skus.entityIds).toEqual(d.skus.map((s) => s.sku_id))
      expect(d.facts.videos.entityIds).toEqual(d.videos.map((v) => v.video_id))
      expect(d.facts.slideshows.entityIds).toEqual(d.slideshows.map((v) => v.video_id))
      expect(d.facts.campaigns.entityIds).toEqual(d.campaigns.map((c) => c.campaign_id))
      expect(d.facts.creatives.entityIds).toEqual(d.creatives.map((c) => c.creative_id))
      expect(d.facts.socialAds.entityIds).toEqual(d.socialAds.map((a) => a.ad_id))
      expect(d.facts.stores.entityIds).toEqual(d.stores.map((s) => s.store_id))
      expect(d.facts.shop.entityIds).toEqual([d.shop.shop_id])
    }
  })

  it("Affiliate: video_gmv and live_gmv never exceed gmv within any window (spec: Affiliate timeseries row)", () => {
    const d = shops[0]!
    const t = d.facts.affiliates
    const last = w.axis.todayIndex
    fc.assert(
      fc.property(fc.integer({ min: 0, max: t.entityCount - 1 }), fc.integer({ min: 0, max: last }), fc.integer({ min: 0, max: last }), (e, a, b) => {
        const [from, to] = a <= b ? [a, b] : [b, a]
        const gmv = t.sum('gmv', e, from, to)
        return t.sum('video_gmv', e, from, to) <= gmv + EPS && t.sum('live_gmv', e, from, to) <= gmv + EPS
      }),
      { seed, numRuns: 300 },
    )
    for (const data of shops) {
      const f = data.facts.affiliates
      for (let r = 0; r < f.rowCount; r++) {
        expect(f.columns.video_gmv[r]!).toBeLessThanOrEqual(f.columns.gmv[r]! + EPS)
        expect(f.columns.live_gmv[r]!).toBeLessThanOrEqual(f.columns.gmv[r]! + EPS)
      }
    }
  })

  it('Affiliate: facts are the sums of the creator’s videos and LIVEs (views, live GMV)', () => {
    for (const d of shops) {
      const viewsByCreator = new Map<string, number>()
      for (const [list, table] of [[d.videos, d.facts.videos], [d.slideshows, d.facts.slideshows]] as const) {
        list.forEach((v, i) => {
          if (!v.is_brand) viewsByCreator.set(v.creator_id, (viewsByCreator.get(v.creator_id) ?? 0) + table.sum('views', i, 0, w.axis.todayIndex))
        })
      }
      const liveByCreator = new Map<string, number>()
      for (const l of d.lives) liveByCreator.set(l.creator_id, (liveByCreator.get(l.creator_id) ?? 0) + l.gmv)
      d.affiliates.forEach((a, i) => {
        expect(d.facts.affiliates.sum('views', i, 0, w.axis.todayIndex)).toBe(viewsByCreator.get(a.creator_id) ?? 0)
        expect(d.facts.affiliates.sum('live_gmv', i, 0, w.axis.todayIndex)).toBeCloseTo(liveByCreator.get(a.creator_id) ?? 0, 2)
      })
    }
  })

  it('Sample request: timestamps are in order and match the status (spec: Samples, States and transitions)', () => {
    for (const d of shops) {
      for (const r of d.sampleRequests) {
        const stage = sampleStage(r.status)
        const chain = [r.timestamp, r.sample_approved, r.sample_shipped, r.sample_received, r.sample_posted]
        chain.forEach((ts, k) => {
          if (k === 0 || k <= stage) expect(ts, `${r.status} stage ${k}`).toMatch(ISO_TS)
          else expect(ts, `${r.status} has no stage ${k}`).toBeNull()
        })
        const present = chain.filter((x): x is string => x !== null)
        expect([...present].sort()).toEqual(present)
        expect(Date.parse(present[present.length - 1]!)).toBeLessThanOrEqual(w.axis.dayStartMs(w.axis.todayIndex) + 86_400_000)
        expect(Date.parse(r.timestamp)).toBeGreaterThanOrEqual(w.axis.dayStartMs(Math.max(0, w.axis.dayIndex(d.shop.created_at))))
        expect(['TC', 'Open']).toContain(r.source)
        expect(r.expire_date).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      }
      for (const r of d.refundableSamples) {
        const chain = [r.timestamp, r.sample_shipped, r.sample_received, r.refund_time].filter((x): x is string => x !== null)
        expect([...chain].sort()).toEqual(chain)
        expect(r.status === 'Refunded').toBe(r.refund_time !== null && r.refund_amount !== null)
        if (r.status === 'Shipped') expect(r.sample_received).toBeNull()
      }
    }
  })

  it('Sample request: every status of the spec appears, with ignored, expiring-soon, TC and Open examples', () => {
    const d = shops[0]!
    const statuses = new Set(d.sampleRequests.map((r) => r.status))
    for (const s of SAMPLE_STATUSES) expect(statuses.has(s), s).toBe(true)
    expect(d.sampleRequests.some((r) => r.ignored)).toBe(true)
    expect(d.sampleRequests.some((r) => OPEN_SAMPLE_STATUSES.includes(r.status) && w.axis.dayIndex(r.expire_date) - w.axis.todayIndex <= 3 && w.axis.dayIndex(r.expire_date) >= w.axis.todayIndex)).toBe(true)
    expect(new Set(d.sampleRequests.map((r) => r.source))).toEqual(new Set(['TC', 'Open']))
    expect(new Set(d.refundableSamples.map((r) => r.status))).toEqual(new Set(['Shipped', 'Delivered', 'Refunded']))
    expect(d.permaIgnoredCreators.length).toBeGreaterThan(0)
    const posted = d.sampleRequests.filter((r) => r.posted_video_id !== null)
    expect(posted.length).toBeGreaterThan(0)
    for (const r of posted) expect(r.sample_posted).toBe(d.videos.find((v) => v.video_id === r.posted_video_id)!.posted_at)
  })

  it('Samples funnel: stage counts derived from timestamps never increase down the stages', () => {
    for (const d of shops) {
      for (const includeIgnored of [false, true]) {
        const rows = d.sampleRequests.filter((r) => includeIgnored || !r.ignored)
        const counts = [
          rows.length,
          rows.filter((r) => r.sample_approved).length,
          rows.filter((r) => r.sample_shipped).length,
          rows.filter((r) => r.sample_received).length,
          rows.filter((r) => r.sample_posted).length,
        ]
        for (let k = 1; k < counts.length; k++) expect(counts[k]!).toBeLessThanOrEqual(counts[k - 1]!)
      }
    }
  })

  it('ratio fields equal the ratio of their parts (roi, cpa, roas, ctr, take rate)', () => {
    for (const d of shops) {
      for (const s of d.sparkCodes) {
        if (s.ad_spend === null) {
          expect([s.status, s.roi, s.cpa]).toEqual([null, null, null])
          continue
        }
        expect(s.roi).toBe(s.ad_spend > 0 ? s.ad_revenue! / s.ad_spend : 0)
        expect(s.cpa).toBe(s.conversions! > 0 ? s.ad_spend / s.conversions! : 0)
      }
      for (const b of d.boostSessions) expect(b.roas).toBe(b.baseline_spend > 0 ? b.baseline_revenue / b.baseline_spend : 0)
      for (const l of d.lives) expect(l.ctr).toBe(l.views > 0 ? (l.clicks / l.views) * 100 : 0)
      const t = d.facts.shop
      for (let r = 0; r < t.rowCount; r++) {
        const gmv = t.columns.platform_gmv[r]!
        const expected = gmv > 0 ? (t.columns.subscription_revenue[r]! / gmv) * 100 : 0
        expect(Math.abs(t.columns.subscription_take_rate[r]! - expected)).toBeLessThan(1e-4)
        expect(t.columns.recurrent_order_gmv[r]! + t.columns.first_subscription_order_gmv[r]!).toBeCloseTo(t.columns.subscription_revenue[r]!, 2)
      }
      const c = d.facts.creatives
      for (let r = 0; r < c.rowCount; r++) {
        expect(c.columns.clicks[r]!).toBeLessThanOrEqual(c.columns.impressions[r]!)
        expect(c.columns.view_rate_6s[r]!).toBeLessThanOrEqual(c.columns.view_rate_2s[r]!)
      }
    }
  })

  it('numbers are finite everywhere (records and every fact column)', () => {
    const walk = (value: unknown, path: string): void => {
      if (typeof value === 'number') expect(Number.isFinite(value), path).toBe(true)
      else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`))
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`)
    }
    const collections = worldToCollections(w)
    for (const [name, value] of Object.entries(collections)) if (!name.startsWith('facts_')) walk(value, name)
    for (const d of shops) for (const table of Object.values(d.facts)) for (const m of table.metrics) expect(table.columns[m as never as string as keyof typeof table.columns].every(Number.isFinite), `${table.name}.${m}`).toBe(true)
  })

  it('daily facts cover the 400 days before today and today; a few shop days have no report (spec: POST /shop/stats rule 3)', () => {
    expect(w.axis.count).toBeGreaterThanOrEqual(401)
    expect(w.axis.date(w.axis.todayIndex)).toBe(TODAY)
    const main = shops[0]!
    expect(main.facts.products.span(0)).toEqual({ first: Math.max(0, w.axis.dayIndex(main.shop.created_at)), last: w.axis.todayIndex })
    const missing = shops.flatMap((d) => {
      const t = d.facts.shop
      const start = Math.max(0, w.axis.dayIndex(d.shop.created_at))
      const out: number[] = []
      for (let day = start; day <= w.axis.todayIndex; day++) if (!t.has(0, day)) out.push(day)
      return out
    })
    expect(missing.length).toBeGreaterThan(0)
    for (const d of shops.filter((x) => x.shop.is_active)) expect(d.facts.shop.value('platform_gmv', 0, w.axis.todayIndex)).not.toBeNull()
  })

  it('an inactive shop has no sales, content or ad spend after it stopped (spec: Shop is_active)', () => {
    const d = shops.find((x) => !x.shop.is_active)!
    const stopped = shopLastDay(d.shop, w.axis)
    expect(stopped).toBeLessThan(w.axis.todayIndex)
    for (const table of [d.facts.shop, d.facts.products, d.facts.skus, d.facts.affiliates, d.facts.videos, d.facts.slideshows, d.facts.campaigns, d.facts.creatives, d.facts.socialAds] as FactTable[]) {
      for (let e = 0; e < table.entityCount; e++) expect(table.reportDays(e, stopped + 1, w.axis.todayIndex), table.name).toBe(0)
    }
    expect(d.facts.contentTotals.sum('video_views', 0, stopped + 1, w.axis.todayIndex)).toBe(0)
    for (const r of d.sampleRequests) expect(Date.parse(r.timestamp)).toBeLessThanOrEqual(w.axis.dayStartMs(stopped + 1))
  })

  it('commerce facts agree: shop GMV = sum of product GMV, SKU units = product units, product units_sold = lifetime units', () => {
    for (const d of shops) {
      const { shop, products, skus } = d.facts
      for (let day = 0; day <= w.axis.todayIndex; day++) {
        const reported = shop.value('platform_gmv', 0, day)
        if (reported === null) continue
        let sum = 0
        for (let p = 0; p < products.entityCount; p++) sum += products.value('total_gmv', p, day) ?? 0
        expect(reported).toBeCloseTo(sum, 2)
      }
      for (let day = 0; day <= w.axis.todayIndex; day++) {
        if (!shop.has(0, day)) continue
        let level = 0
        for (let p = 0; p < products.entityCount; p++) level += products.value('active_subscriptions', p, day) ?? 0
        expect(shop.value('active_subscribers', 0, day)).toBe(level)
      }
      d.products.forEach((product, p) => {
        for (let r = products.offsets[p]! + 1; r < products.offsets[p + 1]!; r++) {
          expect(products.columns.recurring_subscriptions[r]!).toBeLessThanOrEqual(products.columns.active_subscriptions[r - 1]!)
        }
        expect(product.units_sold).toBe(products.sum('units_sold', p, 0, w.axis.todayIndex))
        const own = d.skus.map((s, i) => [s, i] as const).filter(([s]) => s.product_id === product.product_id)
        const skuUnits = own.reduce((n, [, i]) => n + skus.sum('units_sold', i, 0, w.axis.todayIndex), 0)
        expect(skuUnits).toBe(product.units_sold)
        const day = w.axis.todayIndex - 3
        const skuGmv = own.reduce((n, [, i]) => n + (skus.value('gmv', i, day) ?? 0), 0)
        expect(skuGmv).toBeCloseTo(products.value('total_gmv', p, day) ?? 0, 1)
        for (let r = products.offsets[p]!; r < products.offsets[p + 1]!; r++) {
          const c = products.columns
          expect(c.affiliate_gmv[r]!).toBeLessThanOrEqual(c.total_gmv[r]! + EPS)
          expect(c.shop_tab_gmv[r]!).toBeLessThanOrEqual(c.total_gmv[r]! + EPS)
          expect(c.subscription_gmv[r]!).toBeLessThanOrEqual(c.total_gmv[r]! + EPS)
          expect(c.orders[r]!).toBeLessThanOrEqual(c.units_sold[r]!)
          expect(c.customers[r]!).toBeLessThanOrEqual(c.orders[r]!)
          expect(c.new_subscriptions[r]!).toBeLessThanOrEqual(c.subscription_orders[r]!)
        }
      })
    }
  })

  it('content totals are the day-by-day sums of the video, slideshow and affiliate tables', () => {
    for (const d of shops) {
      const totals = d.facts.contentTotals
      expect(totals.reportDays(0, 0, w.axis.todayIndex)).toBe(w.axis.count)
      for (const day of [0, 100, 250, w.axis.todayIndex - 2, w.axis.todayIndex]) {
        let views = 0
        let affiliateViews = 0
        d.videos.forEach((v, i) => {
          const x = d.facts.videos.value('views', i, day) ?? 0
          views += x
          if (!v.is_brand) affiliateViews += x
        })
        let slideshowGmv = 0
        for (let i = 0; i < d.slideshows.length; i++) slideshowGmv += d.facts.slideshows.value('gmv', i, day) ?? 0
        let affiliateGmv = 0
        let active = 0
        for (let a = 0; a < d.affiliates.length; a++) {
          const g = d.facts.affiliates.value('gmv', a, day) ?? 0
          affiliateGmv += g
          if (g > 0) active++
        }
        expect(totals.value('video_views', 0, day)).toBe(views)
        expect(totals.value('affiliate_video_views', 0, day)).toBe(affiliateViews)
        expect(totals.value('slideshow_gmv', 0, day)).toBeCloseTo(slideshowGmv, 2)
        expect(totals.value('affiliate_gmv', 0, day)).toBeCloseTo(affiliateGmv, 2)
        expect(totals.value('active_affiliates', 0, day)).toBe(active)
      }
    }
  })

  it('sales-max campaign facts are the sums of their creatives', () => {
    for (const d of shops) {
      d.campaigns.forEach((c, ci) => {
        const own = d.creatives.map((cr, i) => [cr, i] as const).filter(([cr]) => cr.campaign_id === c.campaign_id)
        const spend = own.reduce((n, [, i]) => n + d.facts.creatives.sum('spend', i, 0, w.axis.todayIndex), 0)
        expect(d.facts.campaigns.sum('ad_spend', ci, 0, w.axis.todayIndex)).toBeCloseTo(spend, 1)
      })
      expect(d.campaigns.some((_c, ci) => d.facts.campaigns.sum('ad_spend', ci, 0, w.axis.todayIndex) === 0)).toBe(true)
      expect(d.campaigns.some((c) => c.campaign_name === null)).toBe(true)
    }
  })

  it('Sponsored-video codes: linked, unlinked (video_link with None) and not running as ads', () => {
    const codes = shops[0]!.sparkCodes
    expect(codes.some((s) => s.video_id !== null && s.status !== null)).toBe(true)
    const unlinked = codes.filter((s) => s.video_id === null)
    expect(unlinked.length).toBeGreaterThan(0)
    for (const s of unlinked) expect(s.video_link).toMatch(/\/video\/None$/)
    expect(codes.some((s) => s.status === null && s.ad_spend === null)).toBe(true)
    for (const s of codes) expect(s.shared_time).toMatch(/^\d{2}\/\d{2}\/\d{4}$/)
  })

  it('excluded creatives (manual and moderation_scan rules, some inactive) and boost sessions (active and ended)', () => {
    const d = shops[0]!
    expect(d.exclusions.some((e) => e.rule_id === 'manual')).toBe(true)
    expect(d.exclusions.some((e) => e.rule_id.startsWith('moderation_scan'))).toBe(true)
    expect(d.exclusions.some((e) => !e.active)).toBe(true)
    expect(d.boostSessions.some((b) => b.active)).toBe(true)
    expect(d.boostSessions.some((b) => !b.active)).toBe(true)
    for (const b of d.boostSessions) {
      expect(b.active).toBe(b.ended_at === null)
      expect(b.active).toBe(b.exit_reason === null)
      if (b.ended_at) expect(b.ended_at >= b.created_at).toBe(true)
    }
  })

  it('Dashboards: defaults not created yet, templates use known stat keys, one board shared from another shop', () => {
    for (const d of shops) {
      expect(d.dashboards.defaultsCreated).toBe(false)
      for (const t of d.dashboards.templates) {
        for (const widget of t.widgets) {
          const keys = widget.type === 'stat' ? [widget.config.statKey] : widget.type === 'stat-chart' ? (widget.config.statKeys as string[]) : []
          for (const k of keys) expect(Object.keys(STAT_KEYS)).toContain(k ?? '')
          if (widget.type === 'stat-chart') expect((widget.config.statKeys as string[]).length).toBeLessThanOrEqual(6)
        }
      }
    }
    const shared = shops.flatMap((d) => d.dashboards.boards).filter((b) => b.shared_with.includes(w.shops[0]!.shop_id))
    expect(shared).toHaveLength(1)
    expect(shared[0]!.home_shop_id).not.toBe(w.shops[0]!.shop_id)
  })

  it('Off-platform sales: linked, not-linked, no-snapshot (refreshing) and auth-error connections; missing days stay missing', () => {
    const [main, second] = shops
    const p0 = main!.products[0]!.product_id
    const storefront = main!.stores.find((s) => s.platform === 'storefront')!
    const marketplace = main!.stores.find((s) => s.platform === 'marketplace')!
    expect(storefront.connected && storefront.snapshot !== null).toBe(true)
    expect(storefront.links.map((l) => l.platform_product_id)).toContain(p0)
    expect(marketplace.connected).toBe(true)
    expect(marketplace.links.map((l) => l.platform_product_id)).not.toContain(p0)
    expect(second!.stores.find((s) => s.platform === 'storefront')!.snapshot).toBeNull()
    expect(second!.stores.find((s) => s.platform === 'marketplace')!.auth_error).toBe(true)
    const t = main!.facts.stores
    expect(t.has(0, w.axis.todayIndex)).toBe(false)
    expect(t.reportDays(0, 0, w.axis.todayIndex)).toBeGreaterThan(100)
    expect(t.has(1, t.span(1)!.first - 1)).toBe(false)
  })

  it('social: programs active/paused/archived with both approval modes, members in every status, at most one program per creator', () => {
    const d = shops[0]!
    expect(new Set(d.programs.map((p) => p.status))).toEqual(new Set(['active', 'paused', 'archived']))
    expect(new Set(d.programs.map((p) => p.approval_mode))).toEqual(new Set(['manual', 'auto']))
    expect(new Set(d.programCreators.map((m) => m.status))).toEqual(new Set(['pending', 'approved', 'rejected', 'removed']))
    expectUnique(d.programCreators.map((m) => m.handle).filter((h) => h !== null), 'program members per brand')
    for (const m of d.programCreators) {
      expect(m.creator_id).toMatch(UUID_V4)
      if (m.status === 'pending') expect(m.approved_at).toBeNull()
    }
    expect(d.socialCampaigns.some((c) => c.campaign_name === null)).toBe(true)
    expect(d.socialAdsets.some((a) => a.adset_name === null)).toBe(true)
  })

  it("videos and LIVEs are posted on their facts' first day in the shop's timezone (spec: POST /shop/stats rule 1)", () => {
    for (const d of shops) {
      d.videos.forEach((v, i) => {
        expect(v.posted_at).toMatch(ISO_TS)
        expect(d.calendar.dayOf(Date.parse(v.posted_at))).toBe(v.post_day)
        expect(d.facts.videos.span(i)?.first).toBe(v.post_day)
      })
      for (const l of d.lives) expect(d.calendar.dayOf(Date.parse(l.started_at))).toBe(l.start_day)
    }
    const la = shops.find((d) => d.shop.timezone === 'America/Los_Angeles')!
    expect(new Date(la.calendar.startMs(w.axis.dayIndex('2026-07-01'))).toISOString()).toBe('2026-07-01T07:00:00.000Z')
  })

  it('events carry full UTC timestamps in order; the SPS-restricted shop sent no DMs in the last 30 days', () => {
    for (const d of shops) {
      for (let i = 1; i < d.events.count; i++) expect(d.events.at[i]!).toBeGreaterThanOrEqual(d.events.at[i - 1]!)
    }
    const restricted = shops.find((d) => d.shop.sps < 3.5)!
    const from = w.axis.dayStartMs(w.axis.todayIndex - 29)
    expect(countEvents(restricted.events, 'dm_sent', from, from + 31 * 86_400_000)).toBe(0)
    const main = shops[0]!
    expect(countEvents(main.events, 'dm_sent', 0, Infinity)).toBeGreaterThan(0)
    expect(countEvents(main.events, 'reply', 0, Infinity)).toBeGreaterThan(0)
  })

  it('creator index is larger than any CRM; profile fields in range; some emails and phones null', () => {
    for (const d of shops) expect(w.creators.length).toBeGreaterThan(d.affiliates.length)
    for (const c of w.creators) {
      expect(c.pps).toBeGreaterThanOrEqual(0)
      expect(c.pps).toBeLessThanOrEqual(5)
      expect(c.creator_rating).toBeLessThanOrEqual(5)
      for (const v of [c.content_quality, c.sample_score, c.posts_with_samples, c.post_frequency, c.sales_generation]) {
        expect(v).toBeGreaterThanOrEqual(0)
        expect(v).toBeLessThanOrEqual(100)
      }
      const shares = Object.values(c.category_splits).reduce((a, b) => a + b, 0)
      expect(shares).toBeCloseTo(1, 5)
    }
    const tags = new Set(shops[0]!.affiliates.flatMap((a) => a.tags))
    expect(tags.has('VIP') && tags.has('vip')).toBe(true)
    for (const tag of tags) expect(tag.length >= 1 && tag.length <= 60).toBe(true)
    expect(w.creators.some((c) => c.email === null)).toBe(true)
    expect(w.creators.some((c) => c.phone_number === null)).toBe(true)
    expect(w.creators.some((c) => c.economic_status === null)).toBe(true)
    expect(shops[0]!.skus.some((s) => s.custom_cogs === null)).toBe(true)
    expect(shops.flatMap((d) => d.products).some((p) => p.sample_cost === null)).toBe(true)
  })

  it('Enterprise market data exists for each of the 18 regions', () => {
    expect(Object.keys(w.market).sort()).toEqual([...REGIONS].sort())
    for (const region of REGIONS) {
      const m = w.market[region]
      expect(m.brands.length).toBeGreaterThan(0)
      expect(m.products.length).toBeGreaterThan(0)
      expect(m.creators.length).toBeGreaterThan(0)
      const brands = new Map(m.brands.map((b) => [b.brand_id, b]))
      for (const p of m.products) expect(brands.get(p.brand_id ?? '')?.name).toBe(p.brand)
      for (const b of m.brands) {
        const own = m.products.filter((p) => p.brand_id === b.brand_id)
        expect(b.product_count).toBe(own.length)
        expect(b.units_sold).toBe(own.reduce((n, p) => n + p.units_sold, 0))
      }
      for (const x of [...m.brands, ...m.products, ...m.creators]) expect(x.region).toBe(region)
    }
  })
})

describe('fixtures: invariants hold for arbitrary seeds (property test)', () => {
  /** The core invariants of issue 3, checked on one world; throws on the first violation. */
  const checkCoreInvariants = (w: World) => {
    expect(w.apiKeys.map((k) => k.key)).toEqual(['demo-key', 'demo-enterprise-key', 'demo-limited-key'])
    expectUnique(w.creators.map((c) => c.handle), 'handles')
    for (const d of shopsOf(w)) {
      expectUnique([...d.videos, ...d.slideshows].map((v) => v.video_id), 'video ids')
      expectUnique(d.sampleRequests.map((r) => r.apply_id), 'apply ids')
      const f = d.facts.affiliates
      for (let r = 0; r < f.rowCount; r++) {
        if (f.columns.video_gmv[r]! > f.columns.gmv[r]! + EPS || f.columns.live_gmv[r]! > f.columns.gmv[r]! + EPS) throw new Error(`affiliate row ${r} exceeds gmv`)
      }
      let previous = Infinity
      for (const field of ['timestamp', 'sample_approved', 'sample_shipped', 'sample_received', 'sample_posted'] as const) {
        const count = d.sampleRequests.filter((r) => !r.ignored && r[field] !== null).length
        expect(count).toBeLessThanOrEqual(previous)
        previous = count
      }
      for (const r of d.sampleRequests) {
        const chain = [r.timestamp, r.sample_approved, r.sample_shipped, r.sample_received, r.sample_posted].filter((x): x is string => x !== null)
        expect(chain.length).toBe(sampleStage(r.status) + 1)
        expect([...chain].sort()).toEqual(chain)
      }
      for (const table of Object.values(d.facts) as FactTable[]) for (const m of table.metrics) expect(table.columns[m]!.every(Number.isFinite)).toBe(true)
    }
  }
  it('ids unique, video/live GMV within GMV, sample timestamps ordered, funnel non-increasing, numbers finite', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        checkCoreInvariants(createWorld({ seed, scale: 'small', today: TODAY }))
      }),
      { seed: 2026, numRuns: 6 },
    )
  })
})

describe('fixtures: records follow the contract (spec: Resources and their fields)', () => {
  type Schemas = components['schemas']
  it('status and region vocabularies equal the contract enums', () => {
    expectTypeOf<SampleStatus>().toEqualTypeOf<Schemas['SampleStatus']>()
    expectTypeOf<AdDeliveryStatus>().toEqualTypeOf<Schemas['DeliveryStatus']>()
    expectTypeOf<Region>().toEqualTypeOf<Schemas['Region']>()
    expect(SAMPLE_STATUSES).toHaveLength(10)
    expect(REGIONS).toHaveLength(18)
  })
  it('stored-as-is records are assignable to their contract schemas', () => {
    const w = worldFor(42)
    const d = w.shopData[w.shops[0]!.shop_id]!
    expectTypeOf(w.shops[0]!).toMatchTypeOf<Schemas['Shop']>()
    expectTypeOf(d.products[0]!).toMatchTypeOf<Schemas['Product']>()
    expectTypeOf(d.skus[0]!).toMatchTypeOf<Schemas['Sku']>()
    expectTypeOf(d.programCreators[0]!).toMatchTypeOf<Schemas['ProgramCreator']>()
    expectTypeOf(d.dashboards.templates[0]!.widgets[0]!).toMatchTypeOf<Omit<Schemas['DashboardWidget'], 'id'>>()
    expectTypeOf(w.market.us.brands[0]!).toMatchTypeOf<Schemas['EnterpriseBrand']>()
    expectTypeOf(d.briefs).toMatchTypeOf<Array<Schemas['CreatorBrief']>>()
    expectTypeOf(d.communityCampaigns).toMatchTypeOf<Array<Schemas['CommunityCampaign']>>()
    expectTypeOf(d.automations).toMatchTypeOf<Array<Schemas['Automation']>>()
    expectTypeOf(d.groups).toMatchTypeOf<Array<Schemas['CrmGroup']>>()
    expectTypeOf(d.emailSenders).toMatchTypeOf<Array<Schemas['EmailSender']>>()
    expect(d.programCreators.length).toBeGreaterThan(0)
  })
})

describe('fixtures: FactTable API', () => {
  const w = worldFor(42)
  const d = w.shopData[w.shops[0]!.shop_id]!
  it('sum over a window equals the brute-force sum of its days; series is null on missing days', () => {
    const t = d.facts.shop
    fc.assert(
      fc.property(fc.integer({ min: 0, max: w.axis.todayIndex }), fc.integer({ min: 0, max: w.axis.todayIndex }), (a, b) => {
        const [from, to] = a <= b ? [a, b] : [b, a]
        const series = t.series('platform_gmv', 0, from, to)
        const brute = series.reduce<number>((n, v) => n + (v ?? 0), 0)
        expect(t.sum('platform_gmv', d.shop.shop_id, from, to)).toBeCloseTo(brute, 4)
        series.forEach((v, i) => expect(v === null).toBe(!t.has(0, from + i)))
      }),
      { seed: 42, numRuns: 100 },
    )
  })
  it('sum equals brute force on contiguous entities (products) and gappy ones (affiliates, stores)', () => {
    const tables: FactTable[] = [d.facts.products, d.facts.affiliates, d.facts.stores, d.facts.videos]
    for (const table of tables) {
      const metric = table.metrics[0]!
      fc.assert(
        fc.property(fc.integer({ min: 0, max: table.entityCount - 1 }), fc.integer({ min: -5, max: w.axis.todayIndex + 5 }), fc.integer({ min: -5, max: w.axis.todayIndex + 5 }), (e, a, b) => {
          const [from, to] = a <= b ? [a, b] : [b, a]
          let brute = 0
          for (let r = table.offsets[e]!; r < table.offsets[e + 1]!; r++) if (table.days[r]! >= from && table.days[r]! <= to) brute += table.columns[metric][r]!
          expect(table.sum(metric, e, from, to)).toBeCloseTo(brute, 4)
          expect(table.reportDays(e, from, to)).toBe(Array.from(table.days.subarray(table.offsets[e]!, table.offsets[e + 1]!)).filter((x) => x >= from && x <= to).length)
        }),
        { seed: 42, numRuns: 200 },
      )
    }
  })
  it('dailyTotals sums every entity per day, NaN on a day no entity reported (gappy and contiguous tables) (spec: POST /shop/stats rule 3: days with no report are skipped, not zero)', () => {
    for (const table of [d.facts.products, d.facts.affiliates, d.facts.campaigns, d.facts.shop] as FactTable[]) {
      const metric = table.metrics[0]!
      const brute = new Map<number, number>()
      for (let r = 0; r < table.rowCount; r++) brute.set(table.days[r]!, (brute.get(table.days[r]!) ?? 0) + table.columns[metric][r]!)
      const totals = table.dailyTotals(metric)
      expect(totals.length).toBe(w.axis.count)
      for (let day = 0; day < w.axis.count; day++) {
        if (brute.has(day)) expect(totals[day], `${table.name} day ${day}`).toBeCloseTo(brute.get(day)!, 6)
        else expect(totals[day], `${table.name} day ${day}`).toBeNaN()
      }
      expect(table.dailyTotals(metric)).toBe(totals)
    }
  })
  it('buildLookups indexes creators by id, handle and oecuid, and shop records by id', () => {
    const lookups = buildLookups(w)
    const c = w.creators[5]!
    expect(lookups.creatorByHandle.get(c.handle)).toBe(c)
    expect(lookups.creatorByOecuid.get(c.creator_oecuid)).toBe(c)
    const shop = lookups.shop(d.shop.shop_id)!
    expect(d.affiliates[shop.affiliateByCreator.get(d.affiliates[3]!.creator_id)!]).toBe(d.affiliates[3])
    expect(lookups.shop(w.foreignShops[0]!.shop_id)).toBeUndefined()
  })
  it('dayIndex maps ISO dates onto the axis; latest carries the previous level forward', () => {
    const t = d.facts.shop
    expect(t.dayIndex(TODAY)).toBe(w.axis.todayIndex)
    expect(w.axis.date(t.dayIndex('2026-01-01'))).toBe('2026-01-01')
    const missingDay = (() => {
      for (let day = 1; day < w.axis.todayIndex; day++) if (!t.has(0, day) && t.has(0, day - 1)) return day
      return -1
    })()
    if (missingDay > 0) expect(t.latest('active_subscribers', 0, missingDay)?.day).toBeLessThan(missingDay)
    expect(t.sum('platform_gmv', 'no-such-entity', 0, 10)).toBe(0)
  })
})

describe('fixtures: scales and export', () => {
  /** A cheap digest of a world: its records (facts excluded) plus every fact column. */
  const digest = (w: World): string => {
    let h = 0
    for (const data of Object.values(w.shopData)) {
      for (const table of Object.values(data.facts)) {
        h = (h * 31 + table.rowCount) >>> 0
        for (const m of table.metrics) {
          const col = table.columns[m as keyof typeof table.columns] as Float64Array
          for (let i = 0; i < col.length; i += 7) h = (h * 31 + Math.round(col[i]! * 100)) >>> 0
        }
      }
    }
    const records = Object.entries(worldToCollections(w)).filter(([k]) => !k.startsWith('facts_'))
    return `${h}:${JSON.stringify(records).length}:${JSON.stringify(records).slice(0, 2000)}`
  }
  it('default scale: a few thousand affiliates per shop, deterministic, creator index larger than any CRM', () => {
    const w = createWorld({ seed: 3, scale: 'default', today: TODAY })
    const main = w.shopData[w.shops[0]!.shop_id]!
    expect(main.affiliates.length).toBeGreaterThanOrEqual(2000)
    expect(w.creators.length).toBeGreaterThan(main.affiliates.length)
    expect(digest(createWorld({ seed: 3, scale: 'default', today: TODAY }))).toBe(digest(w))
  })
  it('writeWorldFiles writes one JSON file per collection (shoptwin fixtures --out DIR)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'shoptwin-fixtures-'))
    try {
      const files = await writeWorldFiles({ seed: 42, scale: 'small', today: TODAY, out })
      expect((await readdir(out)).sort()).toEqual([...files].sort())
      for (const name of ['shops.json', 'api_keys.json', 'affiliates.json', 'sample_requests.json', 'facts_affiliates.json', 'facts_products.json']) expect(files).toContain(name)
      const rows = JSON.parse(await readFile(join(out, 'facts_affiliates.json'), 'utf8')) as Array<Record<string, unknown>>
      expect(rows[0]).toMatchObject({ shop_id: expect.any(String), date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), entity_id: expect.any(String), gmv: expect.any(Number) })
    } finally {
      await rm(out, { recursive: true, force: true })
    }
  })
})
