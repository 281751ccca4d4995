/**
 * The affiliate CRM, videos, slideshows and LIVE lists against the mock, in-process (spec: CRM,
 * videos, slideshows, LIVEs; Resources: Affiliate (CRM row), Video, Slideshow, LIVE stream; Limits).
 * Expected values are recomputed here from the world's fact rows and records.
 */
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import type { Affiliate, Creator, FactTable, ShopData } from '../fixtures/index.ts'
import { createHandlers, createMockState } from '../mock/index.ts'
import { filterCrmAffiliates } from '../mock/lib/crm.ts'
import { affiliateTagsState } from '../mock/lib/tags.ts'
import { mockHarness } from './support/harness.ts'

const { state, mainShop: shop, post } = mockHarness()
const data: ShopData = state.world.shopData[shop.shop_id]!
const { axis } = state.world

const RANGE = { from: '2025-12-01', to: '2026-02-28' }
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(0.011)
const usDate = (day: number) => {
  const d = axis.date(day)
  return `${d.slice(5, 7)}/${d.slice(8, 10)}/${d.slice(0, 4)}`
}
const inRange = (day: number, range?: { from: string; to: string }) => !range || (axis.date(day) >= range.from && axis.date(day) <= range.to)
const isSorted = (values: number[], direction: 'asc' | 'desc') => values.every((v, i) => i === 0 || (direction === 'asc' ? values[i - 1]! <= v : values[i - 1]! >= v))

function factSum(table: FactTable, id: string, metric: string, range?: { from: string; to: string }): number {
  return table.rows(id).filter((r) => !range || (r.date >= range.from && r.date <= range.to)).reduce((s, r) => s + (r.values as Record<string, number>)[metric]!, 0)
}
const creatorOf = (a: Affiliate): Creator => state.world.creators[a.creator_index]!
const lifetime = (a: Affiliate, metric: string) => factSum(data.facts.affiliates, a.creator_id, metric)

async function crm(body: Record<string, unknown>) {
  const res = await post('/affiliate/crm/list', { page_size: 10_000, ...body })
  expect(res.status).toBe(200)
  return res.json.results as any[]
}
const handles = (rows: Array<{ handle: string }>) => rows.map((r) => r.handle).sort()

describe('CRM list (spec: CRM, videos, slideshows, LIVEs: POST /affiliate/crm/list)', () => {
  it('crm: results, has_more, page_size and page_offset are at the top level; page_offset = (page_number - 1) x page_size (spec: Conventions 2)', async () => {
    const first = await post('/affiliate/crm/list', { page_size: 7, page_number: 1 })
    expect(Object.keys(first.json).sort()).toEqual(['has_more', 'page_offset', 'page_size', 'results'])
    expect(first.json).toMatchObject({ has_more: true, page_size: 7, page_offset: 0 })
    const pages = [first.json.results]
    for (let page = 2; page <= 6; page++) {
      const res = await post('/affiliate/crm/list', { page_size: 7, page_number: page })
      expect(res.json.page_offset).toBe((page - 1) * 7)
      expect(res.json.has_more).toBe(page * 7 < data.affiliates.length)
      pages.push(res.json.results)
    }
    expect(handles(pages.flat())).toEqual(handles(data.affiliates))
  })

  it.each([
    ['all-time without date_range', undefined],
    ['within date_range', RANGE],
  ] as const)('crm: shop metrics (gmv, video_gmv, live_gmv, commission, units, counts, LIVE minutes) are %s (spec: Resources: Affiliate (CRM row))', async (_, range) => {
    const rows = await crm(range ? { date_range: range } : {})
    for (const row of rows) {
      const a = data.affiliates.find((x) => x.creator_id === row.creator_id)!
      for (const metric of ['gmv', 'video_gmv', 'live_gmv', 'commission', 'units_sold']) close(row[metric], factSum(data.facts.affiliates, a.creator_id, metric, range))
      const lives = data.lives.filter((l) => l.creator_id === a.creator_id && inRange(l.start_day, range))
      expect(row.video_count).toBe(data.videos.filter((v) => v.creator_id === a.creator_id && inRange(v.post_day, range)).length)
      expect(row.live_count).toBe(lives.length)
      expect(row.live_duration).toBe(lives.reduce((s, l) => s + l.duration, 0))
    }
  })

  it('crm: profile fields are the platform-wide creator\'s; last_post and last_live are the most recent dates or null (spec: Resources: Affiliate (CRM row))', async () => {
    const rows = await crm({})
    for (const row of rows) {
      const a = data.affiliates.find((x) => x.creator_id === row.creator_id)!
      const c = creatorOf(a)
      expect(row).toMatchObject({
        shop_id: shop.shop_id, handle: a.handle, nickname: c.nickname, showcasing: a.showcasing, med_gmv_revenue: c.med_gmv_revenue, follower_cnt: c.follower_cnt,
        brand_collaborations: c.brand_collaborations, video_avg_view_cnt: c.video_avg_view_cnt, category_splits: c.category_splits, gender: c.gender, tags: a.tags,
      })
      const posts = [...data.videos, ...data.slideshows].filter((v) => v.creator_id === a.creator_id).map((v) => v.post_day)
      const lives = data.lives.filter((l) => l.creator_id === a.creator_id).map((l) => l.start_day)
      expect(row.last_post).toBe(posts.length ? usDate(Math.max(...posts)) : null)
      expect(row.last_live).toBe(lives.length ? usDate(Math.max(...lives)) : null)
    }
    expect(rows.some((r) => r.last_live === null)).toBe(true)
  })

  it('crm: email falls back to the creator\'s public email; a shop override wins; null when neither is known (spec: Resources: Affiliate (CRM row))', async () => {
    // The generated world has all three (the world is read-only: the CRM indexes it once).
    const overridden = data.affiliates.find((a) => a.email !== null && a.email !== creatorOf(a).email)!
    const fallback = data.affiliates.find((a) => a.email === null && creatorOf(a).email !== null)!
    const unknown = data.affiliates.find((a) => a.email === null && creatorOf(a).email === null)!
    const rows = await crm({})
    const emailOf = (a: Affiliate) => rows.find((r) => r.creator_id === a.creator_id)!.email
    expect(emailOf(overridden)).toBe(overridden.email)
    expect(emailOf(fallback)).toBe(creatorOf(fallback).email)
    expect(emailOf(unknown)).toBeNull()
  })

  // Every filter, with the rows it must keep, computed from the records and the fact rows.
  const vip = (a: Affiliate) => a.tags.includes('VIP')
  const lowFollowers = () => [...data.affiliates].map((a) => creatorOf(a).follower_cnt).sort((x, y) => x - y)[Math.floor(data.affiliates.length / 2)]!
  const filterCases: Array<[string, () => Record<string, unknown>, (a: Affiliate) => boolean, { from: string; to: string }?]> = [
    ['handle (case-insensitive substring)', () => ({ handle: data.affiliates[0]!.handle.slice(0, 4).toUpperCase() }), (a) => a.handle.includes(data.affiliates[0]!.handle.slice(0, 4))],
    ['min_videos (videos in the window)', () => ({ min_videos: 2 }), (a) => data.videos.filter((v) => v.creator_id === a.creator_id).length >= 2],
    ['min_videos within date_range', () => ({ min_videos: 1 }), (a) => data.videos.some((v) => v.creator_id === a.creator_id && inRange(v.post_day, RANGE)), RANGE],
    ['include_tags (any of them, case-sensitive: VIP is not vip)', () => ({ include_tags: ['VIP'] }), vip],
    ['include_tags with several tags', () => ({ include_tags: ['vip', 'Gifted'] }), (a) => a.tags.includes('vip') || a.tags.includes('Gifted')],
    ['exclude_tags (none of them)', () => ({ exclude_tags: ['VIP', 'Top Performer'] }), (a) => !a.tags.includes('VIP') && !a.tags.includes('Top Performer')],
    ['affiliate_performance min_gmv/max_gmv (platform-wide 30-day GMV)', () => ({ affiliate_performance: { min_gmv: 100, max_gmv: 5000 } }), (a) => creatorOf(a).med_gmv_revenue >= 100 && creatorOf(a).med_gmv_revenue <= 5000],
    ['affiliate_performance min_followers/max_followers', () => ({ affiliate_performance: { min_followers: lowFollowers() } }), (a) => creatorOf(a).follower_cnt >= lowFollowers()],
    ['affiliate_performance max_followers', () => ({ affiliate_performance: { max_followers: lowFollowers() } }), (a) => creatorOf(a).follower_cnt <= lowFollowers()],
    ['shop_performance min_gmv (shop lifetime, even with date_range)', () => ({ shop_performance: { min_gmv: 500 } }), (a) => lifetime(a, 'gmv') >= 500, RANGE],
    ['shop_performance max_gmv', () => ({ shop_performance: { max_gmv: 500 } }), (a) => lifetime(a, 'gmv') <= 500],
    ['shop_performance min_video_gmv/max_video_gmv', () => ({ shop_performance: { min_video_gmv: 1, max_video_gmv: 3000 } }), (a) => lifetime(a, 'video_gmv') >= 1 && lifetime(a, 'video_gmv') <= 3000],
    ['shop_performance min_live_gmv/max_live_gmv', () => ({ shop_performance: { min_live_gmv: 1, max_live_gmv: 100_000 } }), (a) => lifetime(a, 'live_gmv') >= 1],
    ['shop_performance min_units_sold/max_units_sold', () => ({ shop_performance: { min_units_sold: 10, max_units_sold: 200 } }), (a) => lifetime(a, 'units_sold') >= 10 && lifetime(a, 'units_sold') <= 200],
  ]
  it.each(filterCases)('crm: filter %s (spec: POST /affiliate/crm/list)', async (_, filters, keep, range) => {
    const rows = await crm({ filters: filters(), ...(range ? { date_range: range } : {}) })
    const expected = data.affiliates.filter(keep)
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(data.affiliates.length)
    expect(handles(rows)).toEqual(handles(expected))
  })

  it('crm: tags are read from the tag state at request time (a tag another area adds filters at once) (spec: Resources: Rules of the named resources, Tags)', async () => {
    const target = data.affiliates[7]!
    const fresh = { shopId: shop.shop_id, tag: 'Fresh Tag', creatorIds: [target.creator_id] }
    state.write(affiliateTagsState, 'tagAffiliates', fresh)
    try {
      expect(handles(await crm({ filters: { include_tags: ['Fresh Tag'] } }))).toEqual([target.handle])
      expect(handles(await crm({ filters: { exclude_tags: ['Fresh Tag'] } }))).not.toContain(target.handle)
    } finally {
      state.write(affiliateTagsState, 'untagAffiliates', fresh)
    }
    expect(await crm({ filters: { include_tags: ['Fresh Tag'] } })).toEqual([])
  })

  it.each(['gmv', 'commission', 'units_sold', 'video_count', 'follower_cnt'])('crm: sort_by %s asc and desc (spec: POST /affiliate/crm/list)', async (sortBy) => {
    for (const direction of ['asc', 'desc'] as const) {
      const rows = await crm({ sort_by: sortBy, sort_direction: direction })
      expect(isSorted(rows.map((r) => r[sortBy]), direction)).toBe(true)
    }
  })

  it('crm: the default order is gmv desc; an unknown sort_by is 400 naming the field (spec: POST /affiliate/crm/list)', async () => {
    const rows = await crm({})
    expect(isSorted(rows.map((r) => r.gmv), 'desc')).toBe(true)
    const bad = await post('/affiliate/crm/list', { sort_by: 'charisma' })
    expect(bad.status).toBe(400)
    expect(bad.json.error).toMatch(/^sort_by must be one of "gmv", /)
  })

  it('crm: just_count returns only total_count, the number of matching rows (spec: Conventions 3)', async () => {
    const res = await post('/affiliate/crm/list', { just_count: true, filters: { include_tags: ['VIP'] } })
    expect(res.json).toEqual({ data: { total_count: data.affiliates.filter(vip).length } })
  })

  it('crm: filterCrmAffiliates (used to re-resolve saved groups) returns the rows the list returns for the same filters (spec: Resources: Rules of the named resources, Groups)', async () => {
    const filters = { affiliate_performance: { min_followers: 1000 }, exclude_tags: ['vip'] }
    const direct = filterCrmAffiliates(state, shop.shop_id, filters, RANGE)
    const listed = await crm({ filters, date_range: RANGE })
    expect(direct).toEqual(listed)
    // The same fields in the same order: the list writes its rows' bytes from crmRow's own parts (lib/crm.ts).
    expect(JSON.stringify(listed)).toBe(JSON.stringify(direct))
    expect(filterCrmAffiliates(state, shop.shop_id, {}).length).toBe(data.affiliates.length)
  })
})

describe('videos list (spec: CRM, videos, slideshows, LIVEs: POST /affiliate/videos/list)', () => {
  async function videos(filters: Record<string, unknown> = {}) {
    const res = await post('/affiliate/videos/list', { page_size: 10_000, filters })
    expect(res.status).toBe(200)
    return res.json.data.results as any[]
  }
  const ids = (rows: Array<{ video_id: string }>) => rows.map((r) => r.video_id).sort()
  const creatorVideos = () => data.videos.filter((v) => !v.is_brand)

  it('videos: {data: {results, has_more, page_size, page_offset}}; rows are the creators\' videos with lifetime metrics (spec: Resources: Video)', async () => {
    const page = await post('/affiliate/videos/list', { page_size: 5, page_number: 2 })
    expect(page.json.data).toMatchObject({ has_more: true, page_size: 5, page_offset: 5 })
    expect(page.json.data.results).toHaveLength(5)
    const rows = await videos()
    expect(ids(rows)).toEqual(ids(creatorVideos()))
    for (const row of rows) {
      const v = data.videos.find((x) => x.video_id === row.video_id)!
      const views = factSum(data.facts.videos, v.video_id, 'views')
      expect(row).toMatchObject({ shop_id: shop.shop_id, handle: v.handle, title: v.title, campaign_id: v.campaign_id, products: v.products, product: v.product, post_time: usDate(v.post_day), view_count: views })
      close(row.gmv, factSum(data.facts.videos, v.video_id, 'gmv'))
      expect(row.ctr).toBeCloseTo(views ? (factSum(data.facts.videos, v.video_id, 'clicks') / views) * 100 : 0, 3)
    }
  })

  it('videos: filters handle, product_filter (one id or an array), date_range on the post day (spec: POST /affiliate/videos/list)', async () => {
    const v = creatorVideos()[3]!
    expect(ids(await videos({ handle: v.handle.toUpperCase() }))).toEqual(ids(creatorVideos().filter((x) => x.handle.includes(v.handle))))
    const [p1, p2] = [data.products[0]!.product_id, data.products[2]!.product_id]
    expect(ids(await videos({ product_filter: p1 }))).toEqual(ids(creatorVideos().filter((x) => x.products.includes(p1))))
    expect(ids(await videos({ product_filter: [p1, p2] }))).toEqual(ids(creatorVideos().filter((x) => x.products.includes(p1) || x.products.includes(p2))))
    expect(ids(await videos({ date_range: RANGE }))).toEqual(ids(creatorVideos().filter((x) => inRange(x.post_day, RANGE))))
  })

  it('videos: affiliate_performance and shop_performance filter by the video\'s creator (spec: POST /affiliate/videos/list)', async () => {
    const creatorOfVideo = (creatorId: string) => data.affiliates.find((a) => a.creator_id === creatorId)!
    expect(ids(await videos({ affiliate_performance: { min_followers: 20_000 } }))).toEqual(ids(creatorVideos().filter((x) => creatorOf(creatorOfVideo(x.creator_id)).follower_cnt >= 20_000)))
    expect(ids(await videos({ shop_performance: { min_gmv: 1000 } }))).toEqual(ids(creatorVideos().filter((x) => lifetime(creatorOfVideo(x.creator_id), 'gmv') >= 1000)))
  })

  it('videos: sort_by and sort_direction inside filters (either case); post_time sorts by date; unknown values are 400 (spec: POST /affiliate/videos/list)', async () => {
    expect(isSorted((await videos({ sort_by: 'view_count', sort_direction: 'ASC' })).map((r) => r.view_count), 'asc')).toBe(true)
    expect(isSorted((await videos({ sort_by: 'gmv', sort_direction: 'desc' })).map((r) => r.gmv), 'desc')).toBe(true)
    const byDate = await videos({ sort_by: 'post_time', sort_direction: 'asc' })
    const days = byDate.map((r) => data.videos.find((v) => v.video_id === r.video_id)!.post_day)
    expect(isSorted(days, 'asc')).toBe(true)
    expect((await post('/affiliate/videos/list', { filters: { sort_by: 'charisma' } })).status).toBe(400)
    expect((await post('/affiliate/videos/list', { filters: { sort_direction: 'sideways' } })).json.error).toBe('filters.sort_direction must be one of "asc", "desc", "ASC", "DESC"')
  })
})

describe('slideshows list (spec: CRM, videos, slideshows, LIVEs: POST /affiliate/slideshows/list)', () => {
  it('slideshows: rows as Video plus engagement_rate and slideshow_url; campaign_id and date_range filters (spec: Resources: Slideshow)', async () => {
    const res = await post('/affiliate/slideshows/list', { page_size: 100 })
    const rows = res.json.data.results as any[]
    expect(rows.map((r) => r.video_id).sort()).toEqual(data.slideshows.map((s) => s.video_id).sort())
    for (const row of rows) {
      const s = data.slideshows.find((x) => x.video_id === row.video_id)!
      const views = factSum(data.facts.slideshows, s.video_id, 'views')
      const engagement = factSum(data.facts.slideshows, s.video_id, 'likes') + factSum(data.facts.slideshows, s.video_id, 'comments')
      expect(row).toMatchObject({ slideshow_url: s.slideshow_url, view_count: views, post_time: usDate(s.post_day) })
      expect(row.engagement_rate).toBeCloseTo(views ? (engagement / views) * 100 : 0, 3)
    }
    const campaignId = data.slideshows.find((s) => s.campaign_id)!.campaign_id!
    const byCampaign = await post('/affiliate/slideshows/list', { filters: { campaign_id: campaignId } })
    expect(byCampaign.json.data.results.map((r: any) => r.video_id).sort()).toEqual(data.slideshows.filter((s) => s.campaign_id === campaignId).map((s) => s.video_id).sort())
    const from = axis.date(Math.min(...data.slideshows.map((s) => s.post_day)))
    const byDate = await post('/affiliate/slideshows/list', { filters: { date_range: { from, to: from } } })
    expect(byDate.json.data.results.every((r: any) => r.post_time === usDate(axis.dayIndex(from)))).toBe(true)
    expect(byDate.json.data.results.length).toBeGreaterThan(0)
  })

  it('slideshows: page_size max 100: 100 is served, 101 is 400 (spec: Limits, page sizes)', async () => {
    expect((await post('/affiliate/slideshows/list', { page_size: 100 })).status).toBe(200)
    const over = await post('/affiliate/slideshows/list', { page_size: 101 })
    expect(over.status).toBe(400)
    expect(over.json.error).toMatch(/page_size/)
  })

  it.each(['roi', 'cpa', 'ad_spend'])('slideshows: sort_by %s is 400 naming the unavailable ad metrics (spec: POST /affiliate/slideshows/list)', async (sortBy) => {
    const res = await post('/affiliate/slideshows/list', { filters: { sort_by: sortBy } })
    expect(res.status).toBe(400)
    expect(res.json.error).toContain(`${sortBy} is unavailable`)
    expect(res.json.error).toContain('roi, cpa and ad_spend')
  })

  it.each(['gmv', 'view_count', 'like_count', 'comment_count', 'units_sold', 'ctr', 'engagement_rate'])('slideshows: sort_by %s in both directions (spec: POST /affiliate/slideshows/list)', async (sortBy) => {
    for (const direction of ['asc', 'desc'] as const) {
      const res = await post('/affiliate/slideshows/list', { filters: { sort_by: sortBy, sort_direction: direction } })
      expect(isSorted(res.json.data.results.map((r: any) => r[sortBy]), direction)).toBe(true)
    }
  })
})

describe('LIVE list (spec: CRM, videos, slideshows, LIVEs: POST /affiliate/lives/list)', () => {
  it('lives: rows are the LIVE streams with start_time MM/DD/YYYY and products_stats (spec: Resources: LIVE stream)', async () => {
    const res = await post('/affiliate/lives/list', { page_size: 100 })
    const rows = res.json.data.results as any[]
    expect(rows).toHaveLength(data.lives.length)
    for (const row of rows) {
      const l = data.lives.find((x) => x.live_id === row.live_id)!
      expect(row).toMatchObject({ handle: l.handle, campaign_id: l.campaign_id, start_time: usDate(l.start_day), duration: l.duration, gmv: l.gmv, views: l.views, products: l.products, products_stats: l.products_stats })
    }
  })

  it('lives: the response echoes sort_by and sort_direction (defaults gmv, desc) (spec: POST /affiliate/lives/list)', async () => {
    const plain = await post('/affiliate/lives/list', {})
    expect(plain.json.data).toMatchObject({ sort_by: 'gmv', sort_direction: 'desc' })
    expect(isSorted(plain.json.data.results.map((r: any) => r.gmv), 'desc')).toBe(true)
    const asked = await post('/affiliate/lives/list', { filters: { sort_by: 'views', sort_direction: 'asc' } })
    expect(asked.json.data).toMatchObject({ sort_by: 'views', sort_direction: 'asc', page_size: 10, page_offset: 0, has_more: false })
    expect(isSorted(asked.json.data.results.map((r: any) => r.views), 'asc')).toBe(true)
  })

  it('lives: filters handle, product_filter, date_range (start day), affiliate_performance and shop_performance (spec: POST /affiliate/lives/list)', async () => {
    const list = async (filters: Record<string, unknown>) => ((await post('/affiliate/lives/list', { page_size: 100, filters })).json.data.results as any[]).map((r) => r.live_id).sort()
    const l = data.lives[0]!
    const expected = (keep: (x: (typeof data.lives)[number]) => boolean) => data.lives.filter(keep).map((x) => x.live_id).sort()
    expect(await list({ handle: l.handle })).toEqual(expected((x) => x.handle.includes(l.handle)))
    expect(await list({ product_filter: l.products[0] })).toEqual(expected((x) => x.products.includes(l.products[0]!)))
    const range = { from: axis.date(l.start_day), to: axis.date(l.start_day + 30) }
    expect(await list({ date_range: range })).toEqual(expected((x) => inRange(x.start_day, range)))
    const aff = (creatorId: string) => data.affiliates.find((a) => a.creator_id === creatorId)!
    const followers = creatorOf(aff(l.creator_id)).follower_cnt
    expect(await list({ affiliate_performance: { min_followers: followers, max_followers: followers } })).toEqual(expected((x) => creatorOf(aff(x.creator_id)).follower_cnt === followers))
    expect(await list({ shop_performance: { min_live_gmv: 1000 } })).toEqual(expected((x) => lifetime(aff(x.creator_id), 'live_gmv') >= 1000))
  })

  it('lives: just_count returns only total_count (spec: Conventions 3)', async () => {
    const res = await post('/affiliate/lives/list', { just_count: true })
    expect(res.json).toEqual({ data: { total_count: data.lives.length } })
  })
})

describe('content lists: date ranges (decision: a reversed range is 400 naming the field)', () => {
  it.each([
    ['/affiliate/crm/list', { date_range: { from: '2026-02-01', to: '2026-01-01' } }, 'date_range.from must not be after date_range.to'],
    ['/affiliate/videos/list', { filters: { date_range: { from: '2026-02-01', to: '2026-01-01' } } }, 'filters.date_range.from must not be after filters.date_range.to'],
    ['/affiliate/lives/list', { filters: { date_range: { from: '2026-02-01', to: '2026-01-01' } } }, 'filters.date_range.from must not be after filters.date_range.to'],
  ])('content: %s with from after to is 400', async (path, body, message) => {
    const res = await post(path, body)
    expect(res.status).toBe(400)
    expect(res.json.error).toBe(message)
  })
})

describe('content lists: pagination depth (spec: Limits)', () => {
  it('crm: results stop at 10,000 rows: the page past the cap is empty with has_more false (spec: Limits)', async () => {
    // A world of its own, enlarged before its first CRM request (the CRM indexes a world once); left
    // unfrozen for that one edit.
    const big = createMockState({ seed: 42, rateLimit: false, freezeWorld: false })
    const affiliates = big.world.shopData[shop.shop_id]!.affiliates
    affiliates.push(...Array.from({ length: 10_010 }, (_, i) => ({ ...affiliates[0]!, creator_id: `depth-${i}`, handle: `depth.${String(i).padStart(5, '0')}`, tags: [] })))
    const handlers = createHandlers(big, { baseUrl: 'https://depth.test', log: () => {} })
    const page = async (pageNumber: number) => {
      const request = new Request('https://depth.test/affiliate/crm/list', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id },
        body: JSON.stringify({ page_size: 100, page_number: pageNumber }),
      })
      return (await (await getResponse(handlers, request))!.json()) as { results: unknown[]; has_more: boolean; page_offset: number }
    }
    const last = await page(100)
    expect(last).toMatchObject({ has_more: false, page_offset: 9_900 })
    expect(last.results).toHaveLength(100)
    expect(await page(101)).toMatchObject({ results: [], has_more: false })
  })

  it('slideshows: page_number x page_size beyond 10,000 is 400 (the list refuses out-of-range paging) (spec: Limits)', async () => {
    expect((await post('/affiliate/slideshows/list', { page_size: 100, page_number: 100 })).status).toBe(200)
    expect((await post('/affiliate/slideshows/list', { page_size: 100, page_number: 101 })).status).toBe(400)
  })
})
