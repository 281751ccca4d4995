/**
 * Social-network partnership ads (spec: Social-network partnership ads; Resources: Creator program,
 * Program creator; States: Program, Membership; Limits), in-process through MSW. Expectations are
 * computed here from the world's records and the daily mirror (`facts.socialAds`, day by day).
 */
import { describe, expect, it } from 'vitest'
import type { ShopData, SocialAd } from '../fixtures/types.ts'
import { mockHarness } from './support/harness.ts'

const BASE = 'https://social.example.com'
const NOW = '2026-03-10T12:00:00.000Z'
const TODAY = '2026-03-10'
const { state, mainShop, call: callPath, admin } = mockHarness({ baseUrl: BASE, now: NOW })

const PATHS = {
  listSocialCampaigns: '/social/campaigns',
  listSocialAdsets: '/social/adsets',
  listSocialAds: '/social/ads',
  listCreatorPrograms: '/social/programs',
  listProgramCreators: '/social/programs/creators',
} as const
type Op = keyof typeof PATHS

/** Calls an operation and checks the response, success or error, against the contract. */
const call = (op: Op, body: unknown, options: { shop?: string | null } = {}) => callPath('POST', PATHS[op], body as Record<string, unknown>, options)

async function ok(op: Op, body: Record<string, unknown> = {}) {
  const res = await call(op, body)
  expect(res.status, res.text).toBe(200)
  return res.json.data
}


const data = (): ShopData => state.world.shopData[mainShop.shop_id]!
const axis = () => state.world.axis
const round2 = (n: number) => Math.round(n * 100) / 100
const div = (a: number, b: number) => (b > 0 ? a / b : 0)
const ALL_TIME = () => ({ from: axis().start, to: TODAY })
const RANGE = { from: '2025-12-01', to: TODAY }

/** The common metric fields of some ads over a range, summed day by day from the mirror. */
function metrics(ads: readonly SocialAd[], range: { from: string; to: string }) {
  const sum = (metric: string) =>
    ads.reduce((t, ad) => t + data().facts.socialAds.series(metric as any, ad.ad_id, axis().dayIndex(range.from), axis().dayIndex(range.to)).reduce<number>((a, v) => a + (v ?? 0), 0), 0)
  const spend = round2(sum('spend'))
  const impressions = Math.round(sum('impressions'))
  const clicks = Math.round(sum('clicks'))
  const purchases = Math.round(sum('purchases'))
  const purchase_value = round2(sum('purchase_value'))
  return { spend, impressions, clicks, purchases, purchase_value, ctr: div(clicks, impressions), roas: div(purchase_value, spend), cost_per_purchase: div(spend, purchases) }
}

/** Asserts rows are ordered by `value` in `direction`, nulls last. */
function expectSorted<T>(rows: T[], value: (row: T) => unknown, direction: 'ASC' | 'DESC') {
  const values = rows.map(value)
  const firstNull = values.findIndex((v) => v === null || v === undefined)
  if (firstNull >= 0) expect(values.slice(firstNull).every((v) => v === null || v === undefined), 'nulls sort last').toBe(true)
  const present = firstNull >= 0 ? values.slice(0, firstNull) : values
  for (let i = 1; i < present.length; i++) {
    const [a, b] = [present[i - 1] as any, present[i] as any]
    expect(direction === 'ASC' ? a <= b : a >= b, `${JSON.stringify(a)} then ${JSON.stringify(b)} is ${direction}`).toBe(true)
  }
}

const adsWhere = (f: (ad: SocialAd) => boolean) => data().socialAds.filter(f)
const METRIC_KEYS = ['spend', 'impressions', 'clicks', 'ctr', 'purchases', 'purchase_value', 'roas', 'cost_per_purchase']

describe('required date range (spec: Social-network partnership ads; Errors)', () => {
  it.each(['listSocialCampaigns', 'listSocialAdsets', 'listSocialAds'] as const)('%s: 400 Missing date_range (from/to) without it or with one bound', async (op) => {
    for (const body of [{}, { date_range: { from: '2026-01-01' } }, { dateRange: { to: '2026-01-01' } }]) {
      const res = await call(op, body)
      expect([res.status, res.json]).toEqual([400, { error: 'Missing date_range (from/to)' }])
    }
  })

  it.each(['listCreatorPrograms', 'listProgramCreators'] as const)('%s: no date range needed', async (op) => {
    expect((await call(op, {})).status).toBe(200)
  })

  it.each(Object.keys(PATHS) as Op[])('%s: 400 Missing X-Shop-Id header (spec: Social-network partnership ads)', async (op) => {
    const res = await call(op, { date_range: RANGE }, { shop: null })
    expect([res.status, res.json]).toEqual([400, { error: 'Missing X-Shop-Id header' }])
    const invalid = await call(op, { date_range: RANGE }, { shop: 'nope' })
    expect([invalid.status, invalid.json]).toEqual([400, { error: 'Invalid shop_id' }])
  })

  it('social: 400 when date_range.from is after date_range.to (our choice)', async () => {
    const res = await call('listSocialAds', { date_range: { from: TODAY, to: '2026-01-01' } })
    expect([res.status, res.json.error]).toEqual([400, 'date_range.from must not be after date_range.to'])
  })
})

describe('campaigns (spec: Social-network partnership ads: POST /social/campaigns)', () => {
  it('social campaigns: metrics sum their ads over date_range; ctr a fraction; pushed_ads all-time; names null when never named (spec)', async () => {
    const result = await ok('listSocialCampaigns', { date_range: RANGE })
    expect(result.total_count).toBe(data().socialCampaigns.length)
    for (const row of result.campaigns) {
      const c = data().socialCampaigns.find((x) => x.campaign_id === row.campaign_id)!
      const ads = adsWhere((ad) => ad.campaign_id === c.campaign_id)
      expect(row).toEqual({ campaign_id: c.campaign_id, campaign_name: c.campaign_name, pushed_ads: ads.length, metrics: metrics(ads, RANGE) })
      expect(row.metrics.ctr).toBeLessThan(1)
    }
    expect(result.campaigns.some((c: any) => c.campaign_name === null)).toBe(true)
    expect(result.campaigns.some((c: any) => c.metrics.spend > 0)).toBe(true)
  })

  it('social campaigns: with no activity in the range roas, ctr and cost_per_purchase are 0 and pushed_ads stays all-time (spec: Common metric fields)', async () => {
    const result = await ok('listSocialCampaigns', { date_range: { from: '2020-01-01', to: '2020-01-31' } })
    for (const row of result.campaigns) {
      expect(row.metrics).toEqual({ spend: 0, impressions: 0, clicks: 0, purchases: 0, purchase_value: 0, ctr: 0, roas: 0, cost_per_purchase: 0 })
      expect(row.pushed_ads).toBe(adsWhere((ad) => ad.campaign_id === row.campaign_id).length)
    }
  })

  it('social campaigns: campaign_ids (string or array) and program_id filter (spec)', async () => {
    const [a, b] = data().socialCampaigns as [ShopData['socialCampaigns'][number], ShopData['socialCampaigns'][number]]
    const ids = (rows: any[]) => rows.map((r) => r.campaign_id).sort()
    expect(ids((await ok('listSocialCampaigns', { date_range: RANGE, campaign_ids: a.campaign_id })).campaigns)).toEqual([a.campaign_id])
    expect(ids((await ok('listSocialCampaigns', { date_range: RANGE, campaign_ids: [a.campaign_id, b.campaign_id] })).campaigns)).toEqual([a.campaign_id, b.campaign_id].sort())
    expect(ids((await ok('listSocialCampaigns', { date_range: RANGE, program_id: b.program_id })).campaigns)).toEqual(
      data().socialCampaigns.filter((c) => c.program_id === b.program_id).map((c) => c.campaign_id).sort(),
    )
  })

  it.each([...METRIC_KEYS, 'campaign_name'].flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))('social campaigns: sort_by %s %s, nulls last (spec)', async (sort_by, sort_direction) => {
    const result = await ok('listSocialCampaigns', { date_range: RANGE, sort_by, sort_direction })
    expect([result.sort_by, result.sort_direction]).toEqual([sort_by, sort_direction])
    expectSorted(result.campaigns, (r: any) => (sort_by === 'campaign_name' ? r.campaign_name : r.metrics[sort_by]), sort_direction)
    if (sort_by === 'campaign_name') expect(result.campaigns.at(-1).campaign_name).toBeNull()
  })

  it('social campaigns: invalid sort_by falls back to spend, sort_direction DESC, page_size 10 by default, max 100 (spec; Limits)', async () => {
    const result = await ok('listSocialCampaigns', { date_range: RANGE, sort_by: 'bogus' })
    expect([result.sort_by, result.sort_direction, result.page, result.page_size]).toEqual(['spend', 'DESC', 1, 10])
    expectSorted(result.campaigns, (r: any) => r.metrics.spend, 'DESC')
    expect((await call('listSocialCampaigns', { date_range: RANGE, page_size: 101 })).status).toBe(400)
    expect((await ok('listSocialCampaigns', { date_range: RANGE, page_size: 100 })).page_size).toBe(100)
  })

  it('social campaigns: camelCase keys are accepted (spec: all accept snake_case and camelCase keys)', async () => {
    const c = data().socialCampaigns[0]!
    const snake = await ok('listSocialCampaigns', { date_range: RANGE, campaign_ids: [c.campaign_id], page_size: 2, sort_by: 'clicks', sort_direction: 'ASC' })
    const camel = await ok('listSocialCampaigns', { dateRange: RANGE, campaignIds: [c.campaign_id], pageSize: 2, sortBy: 'clicks', sortDir: 'ASC' })
    expect(camel).toEqual(snake)
    expect(camel.campaigns).toHaveLength(1)
  })
})

describe('adsets (spec: Social-network partnership ads: POST /social/adsets)', () => {
  it('social adsets: metrics over date_range, pushed_ads all-time, names null for non-pushed entities (spec)', async () => {
    const result = await ok('listSocialAdsets', { date_range: RANGE, page_size: 100 })
    expect(result.total_count).toBe(data().socialAdsets.length)
    for (const row of result.adsets) {
      const s = data().socialAdsets.find((x) => x.adset_id === row.adset_id)!
      const ads = adsWhere((ad) => ad.adset_id === s.adset_id)
      const campaign = data().socialCampaigns.find((c) => c.campaign_id === s.campaign_id)!
      expect(row).toEqual({ adset_id: s.adset_id, adset_name: s.adset_name, campaign_id: s.campaign_id, campaign_name: campaign.campaign_name, pushed_ads: ads.length, metrics: metrics(ads, RANGE) })
    }
    expect(result.adsets.some((r: any) => r.adset_name === null)).toBe(true)
    expect(result.adsets.some((r: any) => r.campaign_name === null)).toBe(true)
  })

  it('social adsets: campaign_id / campaign_ids, adset_ids and program_id filter (spec)', async () => {
    const [a, b] = data().socialCampaigns as [ShopData['socialCampaigns'][number], ShopData['socialCampaigns'][number]]
    const ids = (rows: any[]) => rows.map((r) => r.adset_id).sort()
    const expectIds = (f: (s: ShopData['socialAdsets'][number]) => boolean) => data().socialAdsets.filter(f).map((s) => s.adset_id).sort()
    expect(ids((await ok('listSocialAdsets', { date_range: RANGE, campaign_id: a.campaign_id })).adsets)).toEqual(expectIds((s) => s.campaign_id === a.campaign_id))
    expect(ids((await ok('listSocialAdsets', { date_range: RANGE, campaign_ids: [a.campaign_id, b.campaign_id] })).adsets)).toEqual(
      expectIds((s) => s.campaign_id === a.campaign_id || s.campaign_id === b.campaign_id),
    )
    const adset = data().socialAdsets[3]!
    expect(ids((await ok('listSocialAdsets', { date_range: RANGE, adset_ids: adset.adset_id })).adsets)).toEqual([adset.adset_id])
    expect(ids((await ok('listSocialAdsets', { date_range: RANGE, program_id: b.program_id })).adsets)).toEqual(expectIds((s) => s.campaign_id === b.campaign_id))
  })

  it.each([...METRIC_KEYS, 'campaign_name', 'adset_name'].flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))('social adsets: sort_by %s %s, nulls last (spec)', async (sort_by, sort_direction) => {
    const result = await ok('listSocialAdsets', { date_range: RANGE, sort_by, sort_direction })
    expectSorted(result.adsets, (r: any) => (sort_by.endsWith('_name') ? r[sort_by] : r.metrics[sort_by]), sort_direction)
  })

  it('social adsets: invalid sort_by falls back to spend; page_size max 100 (spec; Limits)', async () => {
    const result = await ok('listSocialAdsets', { date_range: RANGE, sort_by: 'nope' })
    expect([result.sort_by, result.sort_direction]).toEqual(['spend', 'DESC'])
    expect((await call('listSocialAdsets', { date_range: RANGE, page_size: 101 })).status).toBe(400)
    const page2 = await ok('listSocialAdsets', { date_range: RANGE, page_size: 2, page: 2 })
    expect(page2.adsets).toEqual((await ok('listSocialAdsets', { date_range: RANGE, page_size: 100 })).adsets.slice(2, 4))
  })
})

describe('ads (spec: Social-network partnership ads: POST /social/ads)', () => {
  it('social ads: each pushed ad with its names, program, content row and metrics over date_range (spec)', async () => {
    const result = await ok('listSocialAds', { date_range: RANGE, page_size: 1000 })
    expect(result.total_count).toBe(data().socialAds.length)
    for (const row of result.ads) {
      const ad = data().socialAds.find((x) => x.ad_id === row.ad_id)!
      const video = data().videos.find((v) => v.video_id === ad.video_id)!
      const lifetime = (metric: string) => Math.round(data().facts.videos.sum(metric as any, ad.video_id, 0, axis().todayIndex))
      const postDate = axis().date(video.post_day)
      expect(row).toEqual({
        ad_id: ad.ad_id,
        campaign_id: ad.campaign_id,
        campaign_name: data().socialCampaigns.find((c) => c.campaign_id === ad.campaign_id)!.campaign_name,
        adset_id: ad.adset_id,
        adset_name: data().socialAdsets.find((s) => s.adset_id === ad.adset_id)!.adset_name,
        program_id: ad.program_id,
        handle: ad.handle,
        video_id: ad.video_id,
        title: ad.title,
        view_count: lifetime('views'),
        like_count: lifetime('likes'),
        comment_count: lifetime('comments'),
        post_time: `${postDate.slice(5, 7)}/${postDate.slice(8, 10)}/${postDate.slice(0, 4)}`,
        pushed_time: ad.pushed_time,
        video_link: ad.video_link,
        metrics: metrics([ad], RANGE),
      })
    }
  })

  it('social ads: handle is exact, case-insensitive, leading @ ignored (spec)', async () => {
    const handle = data().socialAds[0]!.handle
    const expected = adsWhere((ad) => ad.handle === handle).map((ad) => ad.ad_id).sort()
    for (const variant of [handle, handle.toUpperCase(), `@${handle}`, `@${handle.toUpperCase()}`]) {
      const result = await ok('listSocialAds', { date_range: RANGE, handle: variant, page_size: 1000 })
      expect(result.ads.map((r: any) => r.ad_id).sort()).toEqual(expected)
    }
    expect((await ok('listSocialAds', { date_range: RANGE, handle: handle.slice(0, -1) })).total_count).toBe(0)
  })

  it('social ads: campaign_id/campaign_ids, adset_id/adset_ids, program_id and video_ids filter and combine (spec)', async () => {
    const ad = data().socialAds[1]!
    const ids = async (body: Record<string, unknown>) => (await ok('listSocialAds', { date_range: RANGE, page_size: 1000, ...body })).ads.map((r: any) => r.ad_id).sort()
    const expectIds = (f: (x: SocialAd) => boolean) => adsWhere(f).map((x) => x.ad_id).sort()
    expect(await ids({ campaign_id: ad.campaign_id })).toEqual(expectIds((x) => x.campaign_id === ad.campaign_id))
    expect(await ids({ campaign_ids: [ad.campaign_id] })).toEqual(expectIds((x) => x.campaign_id === ad.campaign_id))
    expect(await ids({ adset_id: ad.adset_id })).toEqual(expectIds((x) => x.adset_id === ad.adset_id))
    expect(await ids({ adset_ids: ad.adset_id })).toEqual(expectIds((x) => x.adset_id === ad.adset_id))
    expect(await ids({ program_id: ad.program_id })).toEqual(expectIds((x) => x.program_id === ad.program_id))
    expect(await ids({ video_ids: [ad.video_id] })).toEqual(expectIds((x) => x.video_id === ad.video_id))
    expect(await ids({ video_ids: ad.video_id, adset_id: ad.adset_id })).toEqual(expectIds((x) => x.video_id === ad.video_id && x.adset_id === ad.adset_id))
  })

  it.each([...METRIC_KEYS, 'handle', 'title', 'post_time', 'view_count'].flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))('social ads: sort_by %s %s (spec)', async (sort_by, sort_direction) => {
    const result = await ok('listSocialAds', { date_range: RANGE, sort_by, sort_direction, page_size: 1000 })
    const postDay = (r: any) => data().videos.find((v) => v.video_id === r.video_id)!.post_day
    const value = (r: any) => (METRIC_KEYS.includes(sort_by) ? r.metrics[sort_by] : sort_by === 'post_time' ? postDay(r) : r[sort_by])
    expectSorted(result.ads, value, sort_direction)
  })

  it('social ads: invalid sort_by falls back to spend; page_size max 1000 (spec; Limits)', async () => {
    const result = await ok('listSocialAds', { date_range: RANGE, sort_by: 'ad_id' })
    expect([result.sort_by, result.sort_direction]).toEqual(['spend', 'DESC'])
    expect((await ok('listSocialAds', { date_range: RANGE, page_size: 1000 })).page_size).toBe(1000)
    expect((await call('listSocialAds', { date_range: RANGE, page_size: 1001 })).status).toBe(400)
  })
})

describe('programs (spec: Social-network partnership ads: POST /social/programs; States: Program)', () => {
  const programSpend = (programId: string, range: { from: string; to: string }) => {
    const m = metrics(adsWhere((ad) => ad.program_id === programId), range)
    return { spend: m.spend, sales: m.purchase_value, roas: div(m.purchase_value, m.spend) }
  }

  it('programs: statuses default to active and paused; archived on request (spec)', async () => {
    const byStatus = (statuses: string[]) => data().programs.filter((p) => statuses.includes(p.status)).map((p) => p.program_id).sort()
    const ids = (rows: any[]) => rows.map((r) => r.program_id).sort()
    expect(ids((await ok('listCreatorPrograms')).programs)).toEqual(byStatus(['active', 'paused']))
    expect(ids((await ok('listCreatorPrograms', { statuses: ['archived'] })).programs)).toEqual(byStatus(['archived']))
    expect(ids((await ok('listCreatorPrograms', { statuses: ['active', 'paused', 'archived'] })).programs)).toEqual(byStatus(['active', 'paused', 'archived']))
  })

  it('programs: spend and sales all-time without date_range and within it when given; member counts and earnings always lifetime (spec)', async () => {
    const allTime = await ok('listCreatorPrograms', { statuses: ['active', 'paused', 'archived'] })
    const ranged = await ok('listCreatorPrograms', { statuses: ['active', 'paused', 'archived'], date_range: RANGE })
    for (const row of allTime.programs) {
      const p = data().programs.find((x) => x.program_id === row.program_id)!
      const members = data().programCreators.filter((m) => m.program_id === p.program_id)
      const lifetime = {
        ...p,
        members_approved: members.filter((m) => m.status === 'approved').length,
        members_pending: members.filter((m) => m.status === 'pending').length,
      }
      expect(row).toEqual({ ...lifetime, ...programSpend(p.program_id, ALL_TIME()) })
      expect(ranged.programs.find((r: any) => r.program_id === p.program_id)).toEqual({ ...lifetime, ...programSpend(p.program_id, RANGE) })
    }
    expect(allTime.programs.some((p: any) => p.spend > ranged.programs.find((r: any) => r.program_id === p.program_id).spend)).toBe(true)
  })

  it('programs: sort defaults to created_at DESC; an invalid sort_by falls back to spend (spec)', async () => {
    const result = await ok('listCreatorPrograms')
    expect([result.sort_by, result.sort_direction]).toEqual(['created_at', 'DESC'])
    expectSorted(result.programs, (p: any) => p.created_at, 'DESC')
    const fallback = await ok('listCreatorPrograms', { sort_by: 'cadence' })
    expect(fallback.sort_by).toBe('spend')
    expectSorted(fallback.programs, (p: any) => p.spend, 'DESC')
  })

  it.each(['created_at', 'name', 'spend', 'sales', 'roas', 'earnings_paid', 'earnings_pending', 'members_approved'].flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))(
    'programs: sort_by %s %s (spec)',
    async (sort_by, sort_direction) => {
      const result = await ok('listCreatorPrograms', { statuses: ['active', 'paused', 'archived'], sort_by, sort_direction })
      expectSorted(result.programs, (p: any) => p[sort_by], sort_direction)
    },
  )

  it('programs: page_size max 100 (spec: Limits)', async () => {
    expect((await call('listCreatorPrograms', { page_size: 101 })).status).toBe(400)
    expect((await ok('listCreatorPrograms', { page_size: 1 })).programs).toHaveLength(1)
  })
})

describe('program creators (spec: Social-network partnership ads: POST /social/programs/creators; States: Membership)', () => {
  const members = () => data().programCreators
  const ids = (rows: any[]) => rows.map((r) => r.creator_id).sort()

  it('program creators: statuses default to pending and approved; program_id optional (spec)', async () => {
    const result = await ok('listProgramCreators', { page_size: 100 })
    expect(ids(result.creators)).toEqual(members().filter((m) => m.status === 'pending' || m.status === 'approved').map((m) => m.creator_id).sort())
    for (const row of result.creators) expect(row).toEqual(members().find((m) => m.creator_id === row.creator_id))
    const removed = await ok('listProgramCreators', { statuses: ['rejected', 'removed'] })
    expect(ids(removed.creators)).toEqual(members().filter((m) => m.status === 'rejected' || m.status === 'removed').map((m) => m.creator_id).sort())
    const program = data().programs[1]!
    const one = await ok('listProgramCreators', { program_id: program.program_id, statuses: ['pending', 'approved', 'rejected', 'removed'] })
    expect(ids(one.creators)).toEqual(members().filter((m) => m.program_id === program.program_id).map((m) => m.creator_id).sort())
  })

  it('program creators: handle is a case-insensitive substring (spec)', async () => {
    const member = members().find((m) => m.handle !== null && m.status === 'approved')!
    const part = member.handle!.slice(1, 5).toUpperCase()
    const result = await ok('listProgramCreators', { handle: part, statuses: ['pending', 'approved', 'rejected', 'removed'] })
    expect(ids(result.creators)).toEqual(members().filter((m) => m.handle?.toLowerCase().includes(part.toLowerCase())).map((m) => m.creator_id).sort())
    expect(ids(result.creators)).toContain(member.creator_id)
  })

  it.each(['joined_at', 'approved_at', 'handle', 'commission_pct', 'earnings_paid', 'ads_count'].flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))(
    'program creators: sort_by %s %s, nulls last (spec)',
    async (sort_by, sort_direction) => {
      const result = await ok('listProgramCreators', { statuses: ['pending', 'approved', 'rejected', 'removed'], sort_by, sort_direction, page_size: 100 })
      expectSorted(result.creators, (m: any) => m[sort_by], sort_direction)
    },
  )

  it('program creators: sort defaults to joined_at DESC, null approved_at and handle last; an invalid sort_by falls back to joined_at (our choice: no spend)', async () => {
    const result = await ok('listProgramCreators', { page_size: 100 })
    expect([result.sort_by, result.sort_direction]).toEqual(['joined_at', 'DESC'])
    expectSorted(result.creators, (m: any) => m.joined_at, 'DESC')
    for (const sort_by of ['approved_at', 'handle']) {
      const rows = (await ok('listProgramCreators', { sort_by, sort_direction: 'ASC', page_size: 100 })).creators
      expect(rows.at(-1)[sort_by]).toBeNull()
    }
    expect((await ok('listProgramCreators', { sort_by: 'spend' })).sort_by).toBe('joined_at')
  })

  it('program creators: page_size max 100 (spec: Limits)', async () => {
    expect((await call('listProgramCreators', { page_size: 101 })).status).toBe(400)
  })

  it('membership: joining a manual program waits as pending until approved; an auto program approves at once (spec: States: Membership pending)', async () => {
    const manual = data().programs.find((p) => p.status === 'active' && p.approval_mode === 'manual')!
    const auto = data().programs.find((p) => p.status === 'active' && p.approval_mode === 'auto')!
    const before = await ok('listCreatorPrograms')
    const counts = (list: any, id: string) => list.programs.find((p: any) => p.program_id === id)
    const joined = await admin('social/join', { shop_id: mainShop.shop_id, program_id: manual.program_id, handle: '@New.Creator' })
    expect(joined.status).toBe(200)
    expect([joined.json.status, joined.json.approved_at, joined.json.joined_at, joined.json.handle]).toEqual(['pending', null, NOW, 'New.Creator'])
    const listed = await ok('listProgramCreators', { handle: 'new.creator' })
    expect(listed.creators).toEqual([joined.json])
    expect(counts(await ok('listCreatorPrograms'), manual.program_id).members_pending).toBe(counts(before, manual.program_id).members_pending + 1)
    state.clock.advance(60_000)
    const approved = await admin('social/approve', { shop_id: mainShop.shop_id, creator_id: joined.json.creator_id })
    expect([approved.json.status, approved.json.approved_at]).toEqual(['approved', '2026-03-10T12:01:00.000Z'])
    expect((await admin('social/approve', { shop_id: mainShop.shop_id, creator_id: joined.json.creator_id })).status).toBe(409)

    const autoJoin = await admin('social/join', { shop_id: mainShop.shop_id, program_id: auto.program_id, handle: 'auto.creator' })
    expect([autoJoin.json.status, autoJoin.json.approved_at]).toEqual(['approved', '2026-03-10T12:01:00.000Z'])
    expect(counts(await ok('listCreatorPrograms'), auto.program_id).members_approved).toBe(counts(before, auto.program_id).members_approved + 1)
  })

  it('membership: a paused or archived program\'s join link is closed; a creator is in at most one program per brand (spec: States: Program; Program creators)', async () => {
    for (const status of ['paused', 'archived']) {
      const program = data().programs.find((p) => p.status === status)!
      const res = await admin('social/join', { shop_id: mainShop.shop_id, program_id: program.program_id, handle: 'someone' })
      expect(res.status).toBe(409)
    }
    const current = members().find((m) => m.status === 'approved' && m.handle !== null)!
    const other = data().programs.find((p) => p.status === 'active' && p.program_id !== current.program_id)!
    expect((await admin('social/join', { shop_id: mainShop.shop_id, program_id: other.program_id, handle: current.handle })).status).toBe(409)
  })
})

describe('CSV (spec: Social-network partnership ads: all accept CSV; Conventions 5)', () => {
  it.each([
    ['listSocialCampaigns', () => data().socialCampaigns.length],
    ['listSocialAdsets', () => data().socialAdsets.length],
    ['listSocialAds', () => data().socialAds.length],
    ['listCreatorPrograms', () => data().programs.filter((p) => p.status !== 'archived').length],
    ['listProgramCreators', () => data().programCreators.filter((m) => m.status === 'pending' || m.status === 'approved').length],
  ] as const)('%s: format csv returns a link to the CSV with the row count, csv_limit caps it, columns are checked', async (op, rows) => {
    const csv = await ok(op, { date_range: RANGE, format: 'csv' })
    expect((await (await fetch(csv.url)).text()).split('\n')).toHaveLength(rows() + 1)
    expect([csv.expires_at, csv.row_count]).toEqual(['2026-03-10T13:00:00.000Z', rows()])
    expect((await ok(op, { date_range: RANGE, format: 'csv', csvLimit: 2 })).row_count).toBe(Math.min(2, rows()))
    const column = op === 'listCreatorPrograms' ? 'spend' : op === 'listProgramCreators' ? 'handle' : 'spend'
    expect((await ok(op, { date_range: RANGE, format: 'csv', columns: [column] })).row_count).toBe(rows())
    expect((await call(op, { date_range: RANGE, format: 'csv', columns: ['nope'] })).status).toBe(400)
  })
})
