/**
 * Samples (spec: Samples; States and transitions: sample request ignored; Limits: sample list depth;
 * Idempotency), in-process through MSW. Expectations are computed here from the world's records
 * (local days through Intl, facts summed directly), not read back from the mock.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { sampleStage } from '../fixtures/index.ts'
import type { RefundableSample, SampleRequest } from '../fixtures/types.ts'
import { countShopEvents, recordedEvents } from '../mock/events.ts'
import { sampleRequestsOf } from '../mock/lib/sample-requests.ts'
import { createAdminHandlers, createHandlers, createMockState } from '../mock/index.ts'
import { contractProblem } from '../mock/testing.ts'
import { editableWorldMock } from './support/editable-world.ts'
import { byCodePoint } from './support/order.ts'

const BASE = 'https://samples.example.com'
const NOW = '2026-03-10T12:00:00.000Z'
const DAY = 86_400_000
const state = createMockState({ seed: 42, now: NOW, rateLimit: false, strict: true })
const mainShop = state.world.shops[0]!
const restrictedShop = state.world.shops.find((s) => s.is_active && s.sps < 3.5)!

const server = setupServer(...createHandlers(state, { baseUrl: BASE, log: () => {} }), ...createAdminHandlers(state, { baseUrl: BASE }))
beforeAll(() => server.listen())
afterAll(() => server.close())
beforeEach(() => {
  state.clock.set(NOW)
  state.reset()
})

const PATHS = {
  getSampleFunnel: '/affiliate/samples/funnel',
  listSampleRequests: '/affiliate/samples/list',
  listRefundableSampleRequests: '/affiliate/samples/refundable/list',
  approveSampleRequests: '/affiliate/samples/approve',
  rejectSampleRequests: '/affiliate/samples/reject',
  ignoreSampleRequests: '/affiliate/samples/ignore',
  unignoreSampleRequests: '/affiliate/samples/unignore',
  sendCreatorDm: '/affiliate/message/dm',
} as const

/** Calls an operation and checks the response (success or error) against the contract. */
async function call(op: keyof typeof PATHS, body: unknown, { shop = mainShop.shop_id, headers = {} as Record<string, string> } = {}) {
  const res = await fetch(`${BASE}${PATHS[op]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop, ...headers },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  expect(contractProblem(state.contract, state.contract.byId.get(op)!, res.status, text)).toBeUndefined()
  return { status: res.status, text, json: JSON.parse(text) as any }
}

async function admin(action: string, body: unknown) {
  const res = await fetch(`${BASE}/__admin/${action}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as any }
}

const data = () => state.world.shopData[mainShop.shop_id]!
/** The shop's sample requests as the writes left them (the samples state; the world's never change). */
const requests = () => sampleRequestsOf(state, mainShop.shop_id)
/** A request as it stands now (writes replace the records they change). */
const current = (r: { apply_id: string }) => requests().find((x) => x.apply_id === r.apply_id)
const creatorOf = (id: string) => state.world.creators.find((c) => c.creator_id === id)
const visible = () => requests().filter((r) => !r.ignored)
const byTimeDesc = (a: { timestamp: string; apply_id: string }, b: { timestamp: string; apply_id: string }) =>
  a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : byCodePoint(a.apply_id, b.apply_id)
const idsOf = (rows: Array<{ apply_id: string }>) => rows.map((r) => r.apply_id)
const sortedIds = (rows: Array<{ apply_id: string }>) => idsOf(rows).sort()
const round2 = (n: number) => Math.round(n * 100) / 100
/** The shop-local date of an instant, through Intl (independent of the mock's calendar). */
const localDate = (iso: string | number, timeZone = mainShop.timezone) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso))
const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10)
const lifetime = (creatorId: string, metric: 'gmv' | 'video_gmv' | 'live_gmv' | 'units_sold') =>
  data().facts.affiliates.sum(metric, creatorId, 0, state.world.axis.todayIndex)

/** Every row of the sample list for a body (one page of 100 holds the small world's requests). */
async function listAll(body: Record<string, unknown> = {}) {
  const res = await call('listSampleRequests', { page_size: 100, ...body })
  expect(res.status).toBe(200)
  expect(res.json.data.has_more).toBe(false)
  return res.json.data.results as any[]
}

async function refundableAll(body: Record<string, unknown> = {}) {
  const res = await call('listRefundableSampleRequests', { page_size: 100, ...body })
  expect(res.status).toBe(200)
  return res.json.data.results as any[]
}

describe('samples list (spec: Samples; States: sample request ignored)', () => {
  it('samples: the list hides ignored requests and sorts by request time, newest first, by default (spec: States: sample request ignored)', async () => {
    expect(data().sampleRequests.some((r) => r.ignored)).toBe(true)
    const rows = await listAll()
    expect(idsOf(rows)).toEqual(idsOf(visible().sort(byTimeDesc)))
  })

  it('samples: each row carries the request and its creator\'s profile, shop_gmv from the affiliate facts (spec: Resources: Sample request)', async () => {
    const rows = await listAll()
    for (const row of rows) {
      const r = data().sampleRequests.find((x) => x.apply_id === row.apply_id)!
      const c = creatorOf(r.creator_id)!
      expect(row).toMatchObject({ status: r.status, timestamp: r.timestamp, sample_approved: r.sample_approved, sample_received: r.sample_received, source: r.source })
      expect(row.follower_cnt).toBe(c.follower_cnt)
      expect(row.post_rate).toBe(c.post_rate ?? 'N/A')
      expect(row.med_gmv_revenue_range).toBe(c.med_gmv_revenue_range)
      expect(row.shop_gmv).toBeCloseTo(lifetime(r.creator_id, 'gmv'), 2)
      const others = data().sampleRequests.filter((x) => x !== r && x.creator_id === r.creator_id && x.sample_approved && ['To Review', 'Ready to Ship', 'Shipped', 'Content Pending', 'Overdue'].includes(x.status))
      expect(row.previous_approved).toBe(others.length > 0)
    }
  })

  it('samples: total_count is filled on page 1 only, has_more says whether rows remain (spec: Samples)', async () => {
    const all = idsOf(visible().sort(byTimeDesc))
    const seen: string[] = []
    for (let page = 1; ; page++) {
      const res = await call('listSampleRequests', { page_size: 7, page_number: page })
      expect(res.json.data.page_number).toBe(page)
      expect(res.json.data.page_size).toBe(7)
      expect(res.json.data.total_count).toBe(page === 1 ? all.length : null)
      seen.push(...idsOf(res.json.data.results))
      expect(res.json.data.has_more).toBe(seen.length < all.length)
      if (!res.json.data.has_more) break
    }
    expect(seen).toEqual(all)
  })

  it('samples: just_count returns only {data: {total_count}} (spec: Conventions 3; Samples)', async () => {
    const res = await call('listSampleRequests', { just_count: true, page_number: 3, source: 'TC' })
    expect(res.json).toEqual({ data: { total_count: visible().filter((r) => r.source === 'TC').length } })
  })

  it.each([
    ['page_size above 100', { page_size: 101 }, 'page_size must be <= 100'],
    ['page_number x page_size above 1000', { page_size: 100, page_number: 11 }, 'page_number x page_size must not exceed 1000'],
    ['page_number x page_size above 1000 with small pages', { page_size: 7, page_number: 143 }, 'page_number x page_size must not exceed 1000'],
  ])('samples: 400 for %s (spec: Limits: sample list depth)', async (_, body, message) => {
    for (const op of ['listSampleRequests', 'listRefundableSampleRequests'] as const) {
      const res = await call(op, body)
      expect(res.status).toBe(400)
      expect(res.json).toEqual({ error: message })
    }
  })

  it('samples: page_number x page_size of exactly 1000 is allowed and past the rows is an empty page (spec: Limits: sample list depth)', async () => {
    const res = await call('listSampleRequests', { page_size: 100, page_number: 10 })
    expect(res.status).toBe(200)
    expect(res.json.data).toEqual({ results: [], page_number: 10, page_size: 100, total_count: null, has_more: false })
  })

  it.each<[string, string[], (r: SampleRequest) => boolean]>([
    ['[ignore] shows only ignored requests', ['ignore'], (r) => r.ignored],
    ['ignore with a status shows ignored requests of that status', ['ignore', 'To Review'], (r) => r.ignored && r.status === 'To Review'],
    ['open statuses', ['Shipped', 'Overdue'], (r) => !r.ignored && (r.status === 'Shipped' || r.status === 'Overdue')],
    ['legacy statuses', ['Approved', 'Pending', 'Delivered', 'Content Posted'], (r) => !r.ignored && ['Approved', 'Pending', 'Delivered', 'Content Posted'].includes(r.status)],
    ['an empty list filters nothing', [], (r) => !r.ignored],
  ])('samples: filters.sample_status: %s (spec: Samples; States: sample request ignored)', async (_, statuses, keep) => {
    const expected = data().sampleRequests.filter(keep)
    const rows = await listAll({ filters: { sample_status: statuses } })
    expect(sortedIds(rows)).toEqual(sortedIds(expected))
    if (statuses.length > 0) expect(rows.length).toBeGreaterThan(0)
  })

  it('samples: filters.handle matches part of the handle, case-insensitive, a leading @ ignored (spec: Samples)', async () => {
    const handle = visible()[3]!.handle
    const part = handle.slice(1, 6)
    const rows = await listAll({ filters: { handle: `@${part.toUpperCase()}` } })
    expect(sortedIds(rows)).toEqual(sortedIds(visible().filter((r) => r.handle.includes(part))))
    expect(rows.length).toBeGreaterThan(0)
  })

  it('samples: filters.product_filter matches the product name, filters.product_ids the product (spec: Samples)', async () => {
    const product = data().products.find((p) => p.product_id === visible()[0]!.sampled_product)!
    const words = product.product_name.toLowerCase().split(/\s+/)
    const nameOf = (id: string) => data().products.find((p) => p.product_id === id)!.product_name.toLowerCase()
    const byName = await listAll({ filters: { product_filter: product.product_name.toUpperCase() } })
    expect(sortedIds(byName)).toEqual(sortedIds(visible().filter((r) => words.every((w) => nameOf(r.sampled_product).includes(w)))))
    expect(byName.length).toBeGreaterThan(0)
    const two = [...new Set(visible().map((r) => r.sampled_product))].slice(0, 2)
    const byId = await listAll({ filters: { product_ids: two } })
    expect(sortedIds(byId)).toEqual(sortedIds(visible().filter((r) => two.includes(r.sampled_product))))
    expect(await listAll({ filters: { product_ids: ['no-such-product'] } })).toEqual([])
  })

  it('samples: filters.date_range is on request time and filters.approval_time on approval time, whole local days inclusive (spec: Samples)', async () => {
    const sorted = visible().sort(byTimeDesc)
    const from = localDate(sorted[Math.floor(sorted.length / 2)]!.timestamp)
    const to = addDays(from, 4)
    const inRange = (iso: string | null) => iso !== null && localDate(iso) >= from && localDate(iso) <= to
    const byRequest = await listAll({ filters: { date_range: { from, to } } })
    expect(sortedIds(byRequest)).toEqual(sortedIds(visible().filter((r) => inRange(r.timestamp))))
    expect(byRequest.length).toBeGreaterThan(0)
    const approved = visible().filter((r) => r.sample_approved).sort((a, b) => (a.sample_approved! < b.sample_approved! ? -1 : 1))
    const aFrom = localDate(approved[0]!.sample_approved!)
    const aTo = localDate(approved[Math.floor(approved.length / 2)]!.sample_approved!)
    const byApproval = await listAll({ filters: { approval_time: { from: aFrom, to: aTo } } })
    const expected = visible().filter((r) => r.sample_approved !== null && localDate(r.sample_approved) >= aFrom && localDate(r.sample_approved) <= aTo)
    expect(sortedIds(byApproval)).toEqual(sortedIds(expected))
    expect(byApproval.length).toBeGreaterThan(1)
  })

  it('samples: 400 naming the field when a range starts after it ends (spec: Samples)', async () => {
    const res = await call('listSampleRequests', { filters: { approval_time: { from: '2026-03-05', to: '2026-03-01' } } })
    expect(res.status).toBe(400)
    expect(res.json).toEqual({ error: 'filters.approval_time.from must not be after filters.approval_time.to' })
  })

  it('samples: affiliate_performance bounds the platform-wide 30-day GMV and followers (spec: Samples; CRM)', async () => {
    const gmvs = visible().map((r) => creatorOf(r.creator_id)!.med_gmv_revenue).sort((a, b) => a - b)
    const followers = visible().map((r) => creatorOf(r.creator_id)!.follower_cnt).sort((a, b) => a - b)
    const minGmv = gmvs[Math.floor(gmvs.length / 3)]!
    const maxFollowers = followers[Math.floor((followers.length * 2) / 3)]!
    const rows = await listAll({ filters: { affiliate_performance: { min_gmv: minGmv, max_followers: maxFollowers } } })
    const expected = visible().filter((r) => creatorOf(r.creator_id)!.med_gmv_revenue >= minGmv && creatorOf(r.creator_id)!.follower_cnt <= maxFollowers)
    expect(sortedIds(rows)).toEqual(sortedIds(expected))
    expect(rows.length).toBeGreaterThan(0)
  })

  it('samples: shop_performance bounds what the creator did for the shop, lifetime (spec: Samples; CRM)', async () => {
    const rows = await listAll({ filters: { shop_performance: { min_gmv: 0.01, min_units_sold: 1 } } })
    const expected = visible().filter((r) => lifetime(r.creator_id, 'gmv') >= 0.01 && lifetime(r.creator_id, 'units_sold') >= 1)
    expect(sortedIds(rows)).toEqual(sortedIds(expected))
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.length).toBeLessThan(visible().length)
    const maxVideo = await listAll({ filters: { shop_performance: { max_video_gmv: 0, max_live_gmv: 0 } } })
    expect(sortedIds(maxVideo)).toEqual(sortedIds(visible().filter((r) => lifetime(r.creator_id, 'video_gmv') <= 0 && lifetime(r.creator_id, 'live_gmv') <= 0)))
  })

  it('samples: prev_worked_with keeps creators who joined the shop\'s CRM before the request (spec: Samples)', async () => {
    const axis = state.world.axis
    const joined = new Map(data().affiliates.map((a) => [a.creator_id, a.joined_day]))
    const expected = visible().filter((r) => joined.has(r.creator_id) && joined.get(r.creator_id)! < axis.dayIndex(localDate(r.timestamp)))
    const rows = await listAll({ prev_worked_with: true })
    expect(sortedIds(rows)).toEqual(sortedIds(expected))
    expect(rows.length).toBeGreaterThan(0)
    expect(sortedIds(await listAll({ prev_worked_with: false }))).toEqual(sortedIds(visible()))
  })

  it('samples: expiring_soon keeps expire_date within 3 days of the mock clock\'s today (spec: Samples)', async () => {
    const expiring = (today: string) => visible().filter((r) => r.expire_date >= today && r.expire_date <= addDays(today, 3))
    const now = await listAll({ expiring_soon: true })
    expect(sortedIds(now)).toEqual(sortedIds(expiring(localDate(NOW))))
    expect(now.length).toBeGreaterThan(0)
    state.clock.advance(5 * DAY)
    const later = await listAll({ expiring_soon: true })
    expect(sortedIds(later)).toEqual(sortedIds(expiring(localDate(Date.parse(NOW) + 5 * DAY))))
    expect(sortedIds(later)).not.toEqual(sortedIds(now))
  })

  it('samples: source keeps TC or Open requests (spec: Samples)', async () => {
    for (const source of ['TC', 'Open'] as const) {
      const rows = await listAll({ source })
      expect(sortedIds(rows)).toEqual(sortedIds(visible().filter((r) => r.source === source)))
      expect(rows.length).toBeGreaterThan(0)
    }
  })

  const RANGES = ['$0-$100', '$100-$1K', '$1K-$10K', '$10K-$100K', '$100K+']
  it.each<[string, (row: any) => number | string | null]>([
    ['timestamp', (r) => r.timestamp],
    ['med_gmv_revenue', (r) => r.med_gmv_revenue],
    ['med_gmv_revenue_range', (r) => RANGES.indexOf(r.med_gmv_revenue_range)],
    ['follower_cnt', (r) => r.follower_cnt],
    ['post_rate', (r) => (r.post_rate === 'N/A' ? null : r.post_rate)],
    ['pps', (r) => r.pps],
    ['gpm', (r) => r.gpm],
    ['average_gmv_per_video', (r) => r.average_gmv_per_video],
    ['expire_date', (r) => r.expire_date],
    ['shop_gmv', (r) => r.shop_gmv],
    ['engagement', (r) => r.video_engagement],
  ])('samples: sort_by %s in both directions, nulls last (spec: Samples)', async (sortBy, key) => {
    for (const direction of ['asc', 'desc'] as const) {
      const rows = await listAll({ sort_by: sortBy, sort_direction: direction })
      expect(sortedIds(rows)).toEqual(sortedIds(visible()))
      const values = rows.map(key)
      const firstNull = values.indexOf(null)
      if (firstNull >= 0) expect(values.slice(firstNull).every((v) => v === null)).toBe(true)
      const present = values.filter((v) => v !== null) as Array<number | string>
      for (let i = 1; i < present.length; i++) {
        if (direction === 'asc') expect(present[i - 1]! <= present[i]!).toBe(true)
        else expect(present[i - 1]! >= present[i]!).toBe(true)
      }
      expect(new Set(present).size).toBeGreaterThan(1)
    }
  })

  it('samples: post_rate N/A sorts last (spec: Resources: Sample request)', async () => {
    const withNa = visible().filter((r) => creatorOf(r.creator_id)!.post_rate === null)
    expect(withNa.length).toBeGreaterThan(0)
    const rows = await listAll({ sort_by: 'post_rate', sort_direction: 'asc' })
    expect(rows.slice(-withNa.length).every((r) => r.post_rate === 'N/A')).toBe(true)
  })

  it('samples: 400 for a sort_direction other than asc or desc (spec: Samples)', async () => {
    const res = await call('listSampleRequests', { sort_direction: 'sideways' })
    expect(res.status).toBe(400)
    expect(res.json).toEqual({ error: 'sort_direction must be one of "asc", "desc", "ASC", "DESC"' })
    expect((await call('listSampleRequests', { sort_direction: 'ASC' })).status).toBe(200)
  })
})

describe('refundable samples (spec: Samples; Resources: Refundable sample request)', () => {
  const refundable = () => data().refundableSamples
  const localIn = (iso: string | null, from: string, to: string) => iso !== null && localDate(iso) >= from && localDate(iso) <= to

  it('samples: refundable rows carry the product info and commission_rate in basis points; total_count on every page (spec: Samples)', async () => {
    const all = refundable().slice().sort(byTimeDesc)
    const page1 = await call('listRefundableSampleRequests', { page_size: 4 })
    expect(page1.json.data).toMatchObject({ page: 1, page_size: 4, total_count: all.length, has_more: true })
    const page3 = await call('listRefundableSampleRequests', { page_size: 4, page_number: 3 })
    expect(page3.json.data).toMatchObject({ page: 3, page_size: 4, total_count: all.length, has_more: false })
    const rows = await refundableAll()
    expect(idsOf(rows)).toEqual(idsOf(all))
    for (const row of rows) {
      const r = all.find((x) => x.apply_id === row.apply_id)!
      const p = data().products.find((x) => x.product_id === r.sampled_product)!
      expect(row.commission_rate).toBe(p.commission_rate)
      expect(Number.isInteger(row.commission_rate) && row.commission_rate >= 100).toBe(true)
      expect(row.product_info).toEqual({ product_id: p.product_id, product_name: p.product_name, is_open_plan: p.is_open_plan, price: p.price, units_sold: p.units_sold })
      expect(row).toMatchObject({ status: r.status, sku_id: r.sku_id, refund_time: r.refund_time, refund_amount: r.refund_amount })
      expect(row.shop_gmv).toBeCloseTo(lifetime(r.creator_id, 'gmv'), 2)
    }
    expect((await call('listRefundableSampleRequests', { just_count: true, filters: { sample_status: ['Refunded'] } })).json).toEqual({
      data: { total_count: all.filter((r) => r.status === 'Refunded').length },
    })
  })

  it('samples: refundable filters: sample_status, handle, product_ids, exclude_product_ids, sku_ids, product_filter (spec: Samples)', async () => {
    const rs = refundable()
    const products = [...new Set(rs.map((r) => r.sampled_product))]
    const nameOf = (id: string) => data().products.find((p) => p.product_id === id)!.product_name
    const cases: Array<[Record<string, unknown>, (r: RefundableSample) => boolean]> = [
      [{ sample_status: ['Refunded', 'Shipped'] }, (r) => r.status === 'Refunded' || r.status === 'Shipped'],
      [{ handle: rs[0]!.handle.slice(0, 4).toUpperCase() }, (r) => r.handle.includes(rs[0]!.handle.slice(0, 4))],
      [{ product_ids: [products[0]] }, (r) => r.sampled_product === products[0]],
      [{ exclude_product_ids: [products[0]] }, (r) => r.sampled_product !== products[0]],
      [{ sku_ids: [rs[1]!.sku_id] }, (r) => r.sku_id === rs[1]!.sku_id],
      [{ product_filter: nameOf(products[0]!).toUpperCase() }, (r) => nameOf(products[0]!).toLowerCase().split(/\s+/).every((w) => nameOf(r.sampled_product).toLowerCase().includes(w))],
      [{ shop_performance: { min_gmv: 0.01 } }, (r) => lifetime(r.creator_id, 'gmv') >= 0.01],
      [{ affiliate_performance: { max_followers: creatorOf(rs[2]!.creator_id)!.follower_cnt } }, (r) => creatorOf(r.creator_id)!.follower_cnt <= creatorOf(rs[2]!.creator_id)!.follower_cnt],
    ]
    for (const [filters, keep] of cases) {
      const rows = await refundableAll({ filters })
      expect(sortedIds(rows), JSON.stringify(filters)).toEqual(sortedIds(rs.filter(keep)))
      expect(rows.length, JSON.stringify(filters)).toBeGreaterThan(0)
    }
  })

  it.each(['timestamp', 'sample_shipped', 'sample_received', 'refund_time', 'review_expire_time'] as const)(
    'samples: refundable time_field %s chooses the timestamp date_range filters (spec: Samples)',
    async (field) => {
      const withField = refundable().filter((r) => r[field] !== null).sort((a, b) => (a[field]! < b[field]! ? -1 : 1))
      const from = localDate(withField[0]![field]!)
      const to = localDate(withField[Math.floor(withField.length / 2)]![field]!)
      const body = field === 'timestamp' ? { filters: { date_range: { from, to } } } : { time_field: field, filters: { date_range: { from, to } } }
      const rows = await refundableAll(body)
      expect(sortedIds(rows)).toEqual(sortedIds(refundable().filter((r) => localIn(r[field], from, to))))
      expect(rows.length).toBeGreaterThan(0)
    },
  )

  it('samples: refundable campaign_id keeps that campaign, all_campaigns any campaign (spec: Samples)', async () => {
    const withCampaign = refundable().filter((r) => r.campaign_id !== null)
    expect(sortedIds(await refundableAll({ all_campaigns: true }))).toEqual(sortedIds(withCampaign))
    const id = withCampaign[0]!.campaign_id!
    expect(sortedIds(await refundableAll({ campaign_id: id }))).toEqual(sortedIds(refundable().filter((r) => r.campaign_id === id)))
  })

  it.each(['timestamp', 'sample_shipped', 'sample_received', 'refund_time', 'refund_amount', 'commission_rate', 'review_expire_time', 'follower_cnt', 'shop_gmv'])(
    'samples: refundable sort_by %s, nulls last (spec: Samples)',
    async (sortBy) => {
      for (const direction of ['asc', 'desc']) {
        const rows = await refundableAll({ sort_by: sortBy, sort_direction: direction })
        const values = rows.map((r) => r[sortBy] as number | string | null)
        const present = values.filter((v) => v !== null)
        expect(values.slice(present.length).every((v) => v === null)).toBe(true)
        const expected = [...present].sort((a, b) => (a! < b! ? -1 : a! > b! ? 1 : 0))
        expect(present).toEqual(direction === 'asc' ? expected : expected.reverse())
      }
    },
  )
})

describe('sample funnel (spec: Samples: funnel)', () => {
  const COLUMNS = ['timestamp', 'sample_approved', 'sample_shipped', 'sample_received', 'sample_posted'] as const
  const OPEN = ['To Review', 'Ready to Ship', 'Shipped', 'Content Pending', 'Overdue']
  const reached = (r: SampleRequest) => Math.max(sampleStage(r.status), ...COLUMNS.map((c, k) => (r[c] ? k : 0)))

  /** The funnel of a cohort, computed here. */
  function expectedFunnel(cohort: SampleRequest[]) {
    const counts = [0, 1, 2, 3, 4].map((k) => cohort.filter((r) => reached(r) >= k).length)
    const funnel = counts.map((count, k) => ({
      count,
      pct_of_entry: counts[0] ? round2((count / counts[0]) * 100) : 0,
      conversion_from_previous_pct: k === 0 ? null : counts[k - 1] ? round2((count / counts[k - 1]!) * 100) : 0,
      dropped_from_previous: k === 0 ? null : counts[k - 1]! - count,
    }))
    const timing = [0, 1, 2, 3].map((k) => {
      const gaps = cohort.filter((r) => r[COLUMNS[k]!] && r[COLUMNS[k + 1]!]).map((r) => (Date.parse(r[COLUMNS[k + 1]!]!) - Date.parse(r[COLUMNS[k]!]!)) / DAY).sort((a, b) => a - b)
      if (gaps.length === 0) return null
      const mid = Math.floor(gaps.length / 2)
      return round2(gaps.length % 2 ? gaps[mid]! : (gaps[mid - 1]! + gaps[mid]!) / 2)
    })
    return { counts, funnel, timing }
  }

  it('samples: funnel by_status counts, shares and open-row ages, ordered by count descending (spec: Samples: funnel)', async () => {
    const res = await call('getSampleFunnel', {})
    const d = res.json.data
    const cohort = visible()
    expect(d).toMatchObject({ time_field: 'timestamp', time_from: null, time_to: null, total_count: cohort.length })
    const counts = d.by_status.map((s: any) => s.count)
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a))
    expect(d.by_status.reduce((s: number, x: any) => s + x.count, 0)).toBe(cohort.length)
    for (const row of d.by_status) {
      const rows = cohort.filter((r) => r.status === row.status)
      expect(row.count).toBe(rows.length)
      expect(row.pct_of_total).toBe(round2((rows.length / cohort.length) * 100))
      expect(row.is_open).toBe(OPEN.includes(row.status))
      const ages = rows.map((r) => (Date.parse(NOW) - Date.parse(r.timestamp)) / DAY)
      if (row.is_open) {
        expect(row.avg_age_days).toBe(round2(ages.reduce((a, b) => a + b, 0) / ages.length))
        expect(row.oldest_age_days).toBe(round2(Math.max(...ages)))
      } else {
        expect(row).not.toHaveProperty('avg_age_days')
        expect(row).not.toHaveProperty('oldest_age_days')
      }
    }
    expect(d.by_status.some((s: any) => s.is_open) && d.by_status.some((s: any) => !s.is_open)).toBe(true)
  })

  it('samples: funnel stages are cumulative from timestamps and status (legacy statuses mapped), never increasing (spec: Samples: funnel)', async () => {
    const d = (await call('getSampleFunnel', {})).json.data
    const { funnel, timing } = expectedFunnel(visible())
    expect(d.funnel.map((s: any) => s.stage)).toEqual(['requested', 'approved', 'shipped', 'delivered', 'posted'])
    expect(d.funnel.map(({ stage: _s, label: _l, ...rest }: any) => rest)).toEqual(funnel)
    for (let k = 1; k < d.funnel.length; k++) expect(d.funnel[k].count).toBeLessThanOrEqual(d.funnel[k - 1].count)
    expect(d.funnel[0]).toMatchObject({ conversion_from_previous_pct: null, dropped_from_previous: null, pct_of_entry: 100 })
    expect(d.timing.map((t: any) => t.step)).toEqual(['request_to_approval', 'approval_to_shipment', 'shipment_to_delivery', 'delivery_to_post'])
    expect(d.timing.map((t: any) => t.median_days)).toEqual(timing)
    expect(timing.every((m) => m !== null)).toBe(true)
    // Legacy statuses count at their stage: an `Approved` request counts as approved even without moving on.
    expect(visible().some((r) => r.status === 'Approved')).toBe(true)
  })

  it('samples: funnel counts a request at every stage its timestamps show, even when its status lags (spec: Samples: funnel)', async () => {
    // No write makes such a request: a mock of its own, whose world this test edits before its first
    // request (the mock's caches hold what the world was when first read), against one left as built.
    const funnel = async (mock: ReturnType<typeof editableWorldMock>) => (await mock.post(PATHS.getSampleFunnel, {})).json.data.funnel.map((s: any) => s.count)
    const before = await funnel(editableWorldMock({ now: NOW }))
    const own = editableWorldMock({ now: NOW })
    const lagging = own.state.world.shopData[mainShop.shop_id]!.sampleRequests.find((r) => r.status === 'To Review' && !r.ignored)!
    // A request rejected after it had been approved and shipped: its status is stage 0, its timestamps stage 2.
    Object.assign(lagging, { status: 'Rejected', sample_approved: lagging.timestamp, sample_shipped: lagging.timestamp })
    const after = await funnel(own)
    expect(after).toEqual([before[0], before[1] + 1, before[2] + 1, before[3], before[4]])
  })

  it('samples: funnel biggest_bottleneck is the transition with the lowest conversion (spec: Samples: funnel)', async () => {
    const d = (await call('getSampleFunnel', {})).json.data
    const { counts } = expectedFunnel(visible())
    let best: { k: number; share: number } | null = null
    for (let k = 1; k < 5; k++) {
      if (counts[k - 1] === 0 || counts[k] === counts[k - 1]) continue
      const share = counts[k]! / counts[k - 1]!
      if (!best || share < best.share) best = { k, share }
    }
    const stages = ['requested', 'approved', 'shipped', 'delivered', 'posted']
    expect(d.biggest_bottleneck).toMatchObject({ stage: stages[best!.k], dropped: counts[best!.k - 1]! - counts[best!.k]!, conversion_pct: round2(best!.share * 100) })
  })

  it.each([
    ['approved', 'sample_approved'],
    ['shipped', 'sample_shipped'],
    ['delivered', 'sample_received'],
    ['posted', 'sample_posted'],
  ] as const)('samples: funnel time_field %s and its column name %s restrict the cohort to rows carrying that timestamp (spec: Samples: funnel)', async (alias, column) => {
    const byAlias = (await call('getSampleFunnel', { time_field: alias })).json.data
    const byColumn = (await call('getSampleFunnel', { time_field: column })).json.data
    const cohort = visible().filter((r) => r[column] !== null)
    expect(byAlias.time_field).toBe(alias)
    expect(byColumn.time_field).toBe(column)
    expect(byAlias.total_count).toBe(cohort.length)
    expect(byAlias.total_count).toBeLessThan(visible().length)
    const { time_field: _a, ...restAlias } = byAlias
    const { time_field: _c, ...restColumn } = byColumn
    expect(restAlias).toEqual(restColumn)
    expect(byAlias.funnel.map((s: any) => s.count)).toEqual(expectedFunnel(cohort).counts)
  })

  it('samples: funnel time_from/time_to are whole local days, inclusive, on the chosen time field (spec: Samples: funnel)', async () => {
    const approved = visible().filter((r) => r.sample_approved).sort((a, b) => (a.sample_approved! < b.sample_approved! ? -1 : 1))
    const pick = approved[Math.floor(approved.length / 2)]!
    const day = localDate(pick.sample_approved!)
    const d = (await call('getSampleFunnel', { time_field: 'approved', time_from: day, time_to: day })).json.data
    const cohort = visible().filter((r) => r.sample_approved && localDate(r.sample_approved) === day)
    expect(d).toMatchObject({ time_from: day, time_to: day, total_count: cohort.length })
    expect(cohort).toContain(pick)
    const week = { time_from: addDays(day, -6), time_to: day }
    const byRequest = (await call('getSampleFunnel', week)).json.data
    expect(byRequest.total_count).toBe(visible().filter((r) => localDate(r.timestamp) >= week.time_from && localDate(r.timestamp) <= day).length)
    const onlyFrom = (await call('getSampleFunnel', { time_from: day })).json.data
    expect(onlyFrom.total_count).toBe(visible().filter((r) => localDate(r.timestamp) >= day).length)
  })

  it('samples: funnel 400 when time_from is after time_to (spec: Samples: funnel)', async () => {
    const res = await call('getSampleFunnel', { time_from: '2026-03-02', time_to: '2026-03-01' })
    expect(res.status).toBe(400)
    expect(res.json).toEqual({ error: 'time_from must not be after time_to' })
  })

  it('samples: funnel filters: product_ids or product_id, campaign_id or all_campaigns, source (spec: Samples: funnel)', async () => {
    const products = [...new Set(visible().map((r) => r.sampled_product))]
    const campaign = visible().find((r) => r.campaign_id)!.campaign_id!
    const cases: Array<[Record<string, unknown>, (r: SampleRequest) => boolean]> = [
      [{ product_ids: products.slice(0, 2) }, (r) => products.slice(0, 2).includes(r.sampled_product)],
      [{ product_id: products[0] }, (r) => r.sampled_product === products[0]],
      [{ campaign_id: campaign }, (r) => r.campaign_id === campaign],
      [{ all_campaigns: true }, (r) => r.campaign_id !== null],
      [{ source: 'TC' }, (r) => r.source === 'TC'],
      [{ source: 'Open', all_campaigns: true }, (r) => r.source === 'Open' && r.campaign_id !== null],
    ]
    for (const [body, keep] of cases) {
      const cohort = visible().filter(keep)
      const d = (await call('getSampleFunnel', body)).json.data
      expect(d.total_count, JSON.stringify(body)).toBe(cohort.length)
      expect(d.funnel.map((s: any) => s.count), JSON.stringify(body)).toEqual(expectedFunnel(cohort).counts)
      expect(cohort.length).toBeGreaterThan(0)
    }
  })

  it('samples: funnel leaves ignored requests out unless include_ignored (spec: States: sample request ignored)', async () => {
    const without = (await call('getSampleFunnel', {})).json.data
    const withIgnored = (await call('getSampleFunnel', { include_ignored: true })).json.data
    expect(without.total_count).toBe(visible().length)
    expect(withIgnored.total_count).toBe(data().sampleRequests.length)
    expect(withIgnored.funnel.map((s: any) => s.count)).toEqual(expectedFunnel(data().sampleRequests).counts)
  })

  it('samples: funnel with no matching requests: counts 0, empty arrays, biggest_bottleneck null (spec: Samples: funnel)', async () => {
    const d = (await call('getSampleFunnel', { time_from: '2020-01-01', time_to: '2020-01-31' })).json.data
    expect(d.total_count).toBe(0)
    expect(d.by_status).toEqual([])
    expect(d.timing).toEqual([])
    expect(d.biggest_bottleneck).toBeNull()
    expect(d.funnel.map((s: any) => s.count)).toEqual([0, 0, 0, 0, 0])
    expect(d.funnel[0]).toMatchObject({ pct_of_entry: 0, conversion_from_previous_pct: null, dropped_from_previous: null })
  })

  it('samples: funnel median_days is null for a transition no request made (spec: Samples: funnel)', async () => {
    state.clock.advance(20 * DAY)
    const creators = state.world.creators.slice(0, 3)
    for (const c of creators) expect((await admin('samples/arrive', { shop_id: mainShop.shop_id, creator_id: c.creator_id })).status).toBe(200)
    const today = localDate(state.clock.nowMs())
    const d = (await call('getSampleFunnel', { time_from: today, time_to: today })).json.data
    expect(d.total_count).toBe(3)
    expect(d.timing.map((t: any) => t.median_days)).toEqual([null, null, null, null])
    expect(d.by_status).toEqual([{ status: 'To Review', count: 3, pct_of_total: 100, is_open: true, avg_age_days: 0, oldest_age_days: 0 }])
    expect(d.biggest_bottleneck).toEqual({ stage: 'approved', label: 'Approved', dropped: 3, conversion_pct: 0 })
  })
})

describe('sample writes (spec: Samples; States: sample request ignored; Idempotency)', () => {
  const toReview = () => visible().filter((r) => r.status === 'To Review')

  it('samples: approve moves To Review to Ready to Ship with sample_approved now and counts only moved ids (spec: Samples)', async () => {
    const [a, b] = toReview()
    const shipped = visible().find((r) => r.status === 'Shipped')!
    const shippedBefore = { ...shipped }
    const res = await call('approveSampleRequests', { apply_ids: [a!.apply_id, b!.apply_id, a!.apply_id, shipped.apply_id, 'no-such-id'] })
    expect(res.status).toBe(200)
    expect(res.json.data.success_count).toBe(2)
    expect(typeof res.json.data.message).toBe('string')
    expect(current(a!)).toMatchObject({ status: 'Ready to Ship', sample_approved: NOW })
    expect(current(b!)).toMatchObject({ status: 'Ready to Ship', sample_approved: NOW })
    expect(current(shipped)).toEqual(shippedBefore)
  })

  it('samples: reject moves To Review to Rejected and counts only moved ids (spec: Samples)', async () => {
    const [a] = toReview()
    const approved = visible().find((r) => r.status === 'Ready to Ship')!
    const res = await call('rejectSampleRequests', { apply_ids: [a!.apply_id, approved.apply_id, 'nope'] })
    expect(res.json.data.success_count).toBe(1)
    expect(current(a!)).toMatchObject({ status: 'Rejected', sample_approved: null })
    expect(current(approved)!.status).toBe('Ready to Ship')
    const again = await call('rejectSampleRequests', { apply_ids: [a!.apply_id] })
    expect(again.json.data.success_count).toBe(0)
    expect((await call('approveSampleRequests', { apply_ids: [] })).json.data.success_count).toBe(0)
  })

  it('samples: an approved sample moves in the list and the funnel at once (spec: Samples; States)', async () => {
    const target = toReview()[0]!
    const before = (await call('getSampleFunnel', {})).json.data
    await call('approveSampleRequests', { apply_ids: [target.apply_id] })
    const after = (await call('getSampleFunnel', {})).json.data
    expect(after.funnel[1].count).toBe(before.funnel[1].count + 1)
    expect(after.funnel[0].count).toBe(before.funnel[0].count)
    const countOf = (d: any, status: string) => d.by_status.find((s: any) => s.status === status)?.count ?? 0
    expect(countOf(after, 'To Review')).toBe(countOf(before, 'To Review') - 1)
    expect(countOf(after, 'Ready to Ship')).toBe(countOf(before, 'Ready to Ship') + 1)
    const approvedToday = (await call('getSampleFunnel', { time_field: 'sample_approved', time_from: localDate(NOW), time_to: localDate(NOW) })).json.data
    expect(approvedToday.by_status.find((s: any) => s.status === 'Ready to Ship')?.count).toBeGreaterThanOrEqual(1)
    const rows = await listAll({ filters: { sample_status: ['Ready to Ship'], approval_time: { from: localDate(NOW), to: localDate(NOW) } } })
    expect(rows.find((r) => r.apply_id === target.apply_id)).toMatchObject({ status: 'Ready to Ship', sample_approved: NOW })
    const reviewQueue = await listAll({ filters: { sample_status: ['To Review'] } })
    expect(idsOf(reviewQueue)).not.toContain(target.apply_id)
  })

  it('samples: approving a creator\'s request makes their other requests previous_approved (spec: Resources: Sample request)', async () => {
    const isActive = (r: SampleRequest) => r.sample_approved !== null && ['To Review', 'Ready to Ship', 'Shipped', 'Content Pending', 'Overdue'].includes(r.status)
    const target = toReview().find((r) => requests().some((o) => o !== r && o.creator_id === r.creator_id && !requests().some((x) => x !== o && x.creator_id === o.creator_id && isActive(x))))
    expect(target).toBeDefined()
    const other = requests().find((o) => o !== target && o.creator_id === target!.creator_id)!
    const before = (await listAll({ filters: { sample_status: other.ignored ? ['ignore'] : [] } })).find((r) => r.apply_id === other.apply_id)
    expect(before.previous_approved).toBe(false)
    await call('approveSampleRequests', { apply_ids: [target!.apply_id] })
    const after = (await listAll({ filters: { sample_status: other.ignored ? ['ignore'] : [] } })).find((r) => r.apply_id === other.apply_id)
    expect(after.previous_approved).toBe(true)
  })

  it('samples: replaying an approve with its Idempotency-Key returns the same body and does not approve twice (spec: Idempotency)', async () => {
    const target = toReview()[0]!
    const headers = { 'Idempotency-Key': 'approve-once-1' }
    const first = await call('approveSampleRequests', { apply_ids: [target.apply_id] }, { headers })
    expect(first.json.data.success_count).toBe(1)
    state.clock.advance(60_000)
    const replay = await call('approveSampleRequests', { apply_ids: [target.apply_id] }, { headers })
    expect(replay.status).toBe(200)
    expect(replay.text).toBe(first.text)
    expect(current(target)).toMatchObject({ status: 'Ready to Ship', sample_approved: NOW })
    const funnel = (await call('getSampleFunnel', { time_field: 'approved', time_from: localDate(NOW), time_to: localDate(NOW) })).json.data
    expect(funnel.total_count).toBe(visible().filter((r) => r.sample_approved && localDate(r.sample_approved) === localDate(NOW)).length)
    const fresh = await call('approveSampleRequests', { apply_ids: [target.apply_id] })
    expect(fresh.json.data.success_count).toBe(0)
  })

  it('samples: ignore hides a request from the list and the funnel without changing its status; unignore reverses it (spec: States: sample request ignored)', async () => {
    const target = toReview()[0]!
    const funnelBefore = (await call('getSampleFunnel', {})).json.data.total_count
    const res = await call('ignoreSampleRequests', { apply_ids: [target.apply_id, 'nope'] })
    expect(res.json.data.ignored_count).toBe(1)
    expect(current(target)).toMatchObject({ status: 'To Review', ignored: true })
    expect(idsOf(await listAll())).not.toContain(target.apply_id)
    expect(idsOf(await listAll({ filters: { sample_status: ['ignore'] } }))).toContain(target.apply_id)
    expect((await call('getSampleFunnel', {})).json.data.total_count).toBe(funnelBefore - 1)
    expect((await call('getSampleFunnel', { include_ignored: true })).json.data.total_count).toBe(requests().length)
    expect((await call('ignoreSampleRequests', { apply_ids: [target.apply_id] })).json.data.ignored_count).toBe(0)
    const undo = await call('unignoreSampleRequests', { apply_ids: [target.apply_id] })
    expect(undo.json.data.unignored_count).toBe(1)
    expect(current(target)).toMatchObject({ status: 'To Review', ignored: false })
    expect(idsOf(await listAll())).toContain(target.apply_id)
    expect((await call('getSampleFunnel', {})).json.data.total_count).toBe(funnelBefore)
    expect((await call('unignoreSampleRequests', {})).json.data.unignored_count).toBe(0)
  })

  it('samples: perma_ignore_affiliates auto-ignores the creator\'s future requests arriving through the control API (spec: Samples; States)', async () => {
    const target = toReview()[0]!
    const creator = creatorOf(target.creator_id)!
    const other = state.world.creators.find((c) => c.creator_id !== creator.creator_id && !data().permaIgnoredCreators.includes(c.creator_id))!
    await call('ignoreSampleRequests', { apply_ids: [target.apply_id], perma_ignore_affiliates: [{ creator_id: creator.creator_id, handle: creator.handle }] })
    state.clock.advance(3_600_000)
    const arrived = await admin('samples/arrive', { shop_id: mainShop.shop_id, handle: `@${creator.handle.toUpperCase()}` })
    expect(arrived.status).toBe(200)
    const hidden = arrived.json.result.sample_request
    expect(hidden).toMatchObject({ creator_id: creator.creator_id, status: 'To Review', ignored: true, timestamp: state.clock.now().toISOString() })
    const shown = (await admin('samples/arrive', { shop_id: mainShop.shop_id, creator_id: other.creator_id, product_id: data().products[1]!.product_id, source: 'TC' })).json.result.sample_request
    expect(shown).toMatchObject({ status: 'To Review', ignored: false, sampled_product: data().products[1]!.product_id, source: 'TC' })
    const queue = await listAll({ filters: { sample_status: ['To Review'] } })
    expect(idsOf(queue)).toContain(shown.apply_id)
    expect(idsOf(queue)).not.toContain(hidden.apply_id)
    expect(queue[0]!.apply_id).toBe(shown.apply_id)
    expect(idsOf(await listAll({ filters: { sample_status: ['ignore'] } }))).toContain(hidden.apply_id)
    // Unignore reverses the request's ignore; the creator stays perma-ignored (only the dashboard reverses that).
    await call('unignoreSampleRequests', { apply_ids: [hidden.apply_id] })
    expect(idsOf(await listAll())).toContain(hidden.apply_id)
    const next = (await admin('samples/arrive', { shop_id: mainShop.shop_id, creator_id: creator.creator_id })).json.result.sample_request
    expect(next.ignored).toBe(true)
  })

  it('samples: samples/arrive defaults to the main shop, its first CRM creator and first product', async () => {
    const res = await admin('samples/arrive', {})
    expect(res.status).toBe(200)
    expect(res.json.result.sample_request).toMatchObject({
      shop_id: mainShop.shop_id,
      creator_id: state.world.creators[data().affiliates[0]!.creator_index]!.creator_id,
      sampled_product: data().products[0]!.product_id,
      source: 'Open',
      status: 'To Review',
      timestamp: NOW,
    })
    expect(requests().at(-1)!.apply_id).toBe(res.json.result.sample_request.apply_id)
  })

  it('samples: the control API refuses samples/arrive for an unknown shop, creator or product', async () => {
    const creator_id = state.world.creators[0]!.creator_id
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ shop_id: 'nope', creator_id }, 404, 'Unknown shop_id: nope'],
      [{ shop_id: mainShop.shop_id, creator_id: 'nobody' }, 400, 'creator_id or handle must name a known creator'],
      [{ shop_id: mainShop.shop_id, handle: '' }, 400, 'creator_id or handle must name a known creator'],
      [{ shop_id: mainShop.shop_id, creator_id, product_id: 'nope' }, 400, 'Unknown product_id: nope'],
      [{ shop_id: mainShop.shop_id, creator_id, source: 'Email' }, 400, 'source must be TC or Open'],
    ]
    const before = requests().length
    for (const [body, status, error] of cases) expect(await admin('samples/arrive', body)).toEqual({ status, json: { error } })
    expect(requests().length).toBe(before)
  })
})

describe('creator DMs (spec: Samples; Account and shop: SPS)', () => {
  const dayWindow = () => [Date.parse(NOW) - DAY, Date.parse(NOW) + DAY] as const

  it('samples: a DM is accepted and recorded so that it counts in dms_sent (spec: Samples; POST /shop/stats)', async () => {
    const creator = state.world.creators[5]!
    const before = countShopEvents(state, mainShop.shop_id, 'dm_sent', ...dayWindow())
    const res = await call('sendCreatorDm', { handle: ` @${creator.handle.toUpperCase()} `, message: 'Loved your last video!' })
    expect(res.status).toBe(200)
    expect(typeof res.json.data.dm_id).toBe('string')
    expect(countShopEvents(state, mainShop.shop_id, 'dm_sent', ...dayWindow())).toBe(before + 1)
    expect(recordedEvents(state, mainShop.shop_id)).toEqual([{ kind: 'dm_sent', at: Date.parse(NOW), creator: 5, campaign: -1 }])
    const byId = await call('sendCreatorDm', { creator_id: state.world.creators[6]!.creator_id, message: 'hi' })
    expect(byId.status).toBe(200)
    expect(byId.json.data.dm_id).not.toBe(res.json.data.dm_id)
    expect(recordedEvents(state, mainShop.shop_id).map((e) => e.creator)).toEqual([5, 6])
  })

  it('samples: 403 when the shop\'s SPS is below 3.5, nothing recorded (spec: Account and shop)', async () => {
    const res = await call('sendCreatorDm', { creator_id: state.world.creators[0]!.creator_id, message: 'hi' }, { shop: restrictedShop.shop_id })
    expect(res.status).toBe(403)
    expect(res.json.error).toBe(`Shop SPS is ${restrictedShop.sps}, below 3.5: the shop is restricted from sending messages to creators`)
    expect(recordedEvents(state, restrictedShop.shop_id)).toEqual([])
  })

  it.each([
    ['an unknown creator_id', { creator_id: 'nobody', message: 'hi' }, 'Unknown creator: creator_id nobody'],
    ['an unknown handle', { handle: '@nobody.at.all', message: 'hi' }, 'Unknown creator: handle @nobody.at.all'],
    ['a creator_id and handle of different creators', { creator_id: state.world.creators[0]!.creator_id, handle: state.world.creators[1]!.handle, message: 'hi' }, 'creator_id and handle name different creators'],
  ])('samples: 400 for a DM to %s (spec: Samples: DM, inferred)', async (_, body, message) => {
    const res = await call('sendCreatorDm', body)
    expect(res.status).toBe(400)
    expect(res.json).toEqual({ error: message })
    expect(recordedEvents(state, mainShop.shop_id)).toEqual([])
  })

  it('samples: replaying a DM with its Idempotency-Key does not send it twice (spec: Idempotency)', async () => {
    const headers = { 'Idempotency-Key': 'dm-once' }
    const body = { creator_id: state.world.creators[2]!.creator_id, message: 'hello' }
    const first = await call('sendCreatorDm', body, { headers })
    const replay = await call('sendCreatorDm', body, { headers })
    expect(replay.text).toBe(first.text)
    expect(recordedEvents(state, mainShop.shop_id)).toHaveLength(1)
  })
})
