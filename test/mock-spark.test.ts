/**
 * Sponsored-video codes against the mock, in-process (spec: Sponsored-video codes; Resources:
 * Sponsored-video code (spark ad); Limits). POST and GET forms, every filter, paging and sorting.
 */
import { describe, expect, it } from 'vitest'
import type { ShopData, SparkCode } from '../fixtures/index.ts'
import { mockHarness } from './support/harness.ts'
import { editableWorldMock } from './support/editable-world.ts'
import { byCodePoint } from './support/order.ts'

const NOW = '2026-03-10T12:00:00.000Z'
const { state, mainShop: shop, call: callPath } = mockHarness({ now: NOW })
const data: ShopData = state.world.shopData[shop.shop_id]!
const { axis } = state.world

const call = (method: 'GET' | 'POST', body: Record<string, unknown> | string = {}) => callPath(method, '/spark/list', body)
const post = (body: Record<string, unknown>) => call('POST', body)

/** Codes of every row the search returns (one page of 100 is all of them in the small world). */
async function codes(body: Record<string, unknown>): Promise<string[]> {
  const res = await post({ page_size: 100, ...body })
  expect(res.status).toBe(200)
  return (res.json.data.results as Array<{ spark_code: string }>).map((r) => r.spark_code).sort()
}
const expected = (keep: (c: SparkCode) => boolean) => data.sparkCodes.filter(keep).map((c) => c.spark_code).sort()
const iso = (us: string | null) => (us ? `${us.slice(6)}-${us.slice(0, 2)}-${us.slice(3, 5)}` : null)
const postDay = (c: SparkCode) => {
  const v = c.video_id ? data.videos.find((x) => x.video_id === c.video_id) : undefined
  return v ? axis.date(v.post_day) : null
}

describe('spark list: rows (spec: Resources: Sponsored-video code)', () => {
  it('spark: rows carry the code\'s fields; video_data joins the content row (ISO post_time; analysis_time the start of the world\'s today, a property of the data) or is null with video_link ending in None (spec: Resources: Sponsored-video code)', async () => {
    const res = await post({ page_size: 100 })
    const rows = res.json.data.results as any[]
    expect(rows).toHaveLength(data.sparkCodes.length)
    for (const row of rows) {
      const c = data.sparkCodes.find((x) => x.spark_code === row.spark_code)!
      expect(row).toMatchObject({ handle: c.handle, shared_time: c.shared_time, video_id: c.video_id, status: c.status, expired: c.expired, ad_spend: c.ad_spend, roi: c.roi, cpa: c.cpa, video_link: c.video_link })
      if (c.video_id === null) {
        expect(row.video_data).toBeNull()
        expect(row.video_link.endsWith('/video/None')).toBe(true)
        continue
      }
      const v = data.videos.find((x) => x.video_id === c.video_id)!
      const gmv = data.facts.videos.rows(v.video_id).reduce((s, r) => s + r.values.gmv, 0)
      expect(row.video_data).toMatchObject({ video_id: v.video_id, handle: v.handle, title: v.title, campaign_id: v.campaign_id, products: v.products, post_time: v.posted_at, analysis_time: `${state.today}T00:00:00.000Z` })
      expect(Math.abs(row.video_data.gmv - gmv)).toBeLessThan(0.011)
    }
    expect(rows.some((r) => r.video_data === null) && rows.some((r) => r.video_data !== null)).toBe(true)
    // Not running as an ad: status, ad_spend, roi and cpa are null together.
    expect(rows.some((r) => r.status === null && r.ad_spend === null && r.roi === null && r.cpa === null)).toBe(true)
  })
})

describe('spark list: filters (spec: Sponsored-video codes)', () => {
  const sample = data.sparkCodes.find((c) => c.video_id && c.auth_start_time)!
  const shared = data.sparkCodes.map((c) => iso(c.shared_time)!).sort()
  const mid = shared[Math.floor(shared.length / 2)]!
  const authFrom = data.sparkCodes.map((c) => iso(c.auth_start_time)).filter((d): d is string => !!d).sort()[3]!
  const authTo = data.sparkCodes.map((c) => iso(c.auth_end_time)).filter((d): d is string => !!d).sort().at(-3)!
  const cases: Array<[string, Record<string, unknown>, (c: SparkCode) => boolean]> = [
    ['handle: case-insensitive substring', { handle: sample.handle.slice(1, 6).toUpperCase() }, (c) => c.handle.includes(sample.handle.slice(1, 6))],
    ['spark_code: exact', { spark_code: sample.spark_code }, (c) => c.spark_code === sample.spark_code],
    ['spark_code: a part of a code matches nothing', { spark_code: sample.spark_code.slice(0, 6) }, () => false],
    ['status: one delivery status', { status: 'NOT_DELIVERING' }, (c) => c.status === 'NOT_DELIVERING'],
    ['status: an array of statuses', { status: ['NOT_DELIVERING', 'DELIVERING', 'LEARNING'] }, (c) => ['NOT_DELIVERING', 'DELIVERING', 'LEARNING'].includes(c.status!)],
    ['expired: true', { expired: true }, (c) => c.expired],
    ['expired: false', { expired: false }, (c) => !c.expired],
    ['video_ids', { video_ids: [sample.video_id, 'no-such-video'] }, (c) => c.video_id === sample.video_id],
    ['shared_time {from, to}', { shared_time: { from: mid, to: axis.today } }, (c) => iso(c.shared_time)! >= mid],
    ['shared_time_from alone (flat key)', { shared_time_from: mid }, (c) => iso(c.shared_time)! >= mid],
    ['shared_time_to alone (flat key)', { shared_time_to: mid }, (c) => iso(c.shared_time)! <= mid],
    ['auth_time: auth_start_time >= from and auth_end_time <= to', { auth_time: { from: authFrom, to: authTo } }, (c) => !!c.auth_start_time && iso(c.auth_start_time)! >= authFrom && iso(c.auth_end_time)! <= authTo],
    ['auth_time_from alone: auth_start_time >= from', { auth_time_from: authFrom }, (c) => !!c.auth_start_time && iso(c.auth_start_time)! >= authFrom],
    ['auth_time_to alone: auth_end_time <= to', { auth_time_to: authTo }, (c) => !!c.auth_end_time && iso(c.auth_end_time)! <= authTo],
    ['post_time: the joined video\'s post day (codes without a video excluded)', { post_time: { from: axis.date(0), to: mid } }, (c) => postDay(c) !== null && postDay(c)! <= mid],
    ['post_time_from/post_time_to (flat keys)', { post_time_from: mid, post_time_to: axis.today }, (c) => postDay(c) !== null && postDay(c)! >= mid],
  ]

  it.each(cases)('spark: search_params filter %s (spec: Sponsored-video codes)', async (_, filter, keep) => {
    const want = expected(keep)
    expect(await codes({ search_params: filter })).toEqual(want)
    // spec: search filters may also be sent inline at the top level.
    expect(await codes(filter)).toEqual(want)
  })

  it('spark: the filters are non-trivial on this world (each keeps some codes and drops some)', () => {
    for (const [name, , keep] of cases.filter(([n]) => !n.includes('nothing') && !n.startsWith('spark_code') && !n.startsWith('video_ids'))) {
      const kept = data.sparkCodes.filter(keep).length
      expect([name, kept > 0 && kept < data.sparkCodes.length]).toEqual([name, true])
    }
  })

  it('spark: filters combine; search_params wins over the same key inline (decision) (spec: Sponsored-video codes)', async () => {
    expect(await codes({ search_params: { expired: true, status: 'NOT_DELIVERING' } })).toEqual(expected((c) => c.expired && c.status === 'NOT_DELIVERING'))
    expect(await codes({ expired: false, search_params: { expired: true } })).toEqual(expected((c) => c.expired))
    expect(await codes({ search_params: { handle: sample.handle }, expired: sample.expired })).toEqual(expected((c) => c.handle.includes(sample.handle) && c.expired === sample.expired))
  })

  it('spark: a reversed range is 400 naming it, in either form (decision) (spec: Sponsored-video codes)', async () => {
    for (const body of [{ shared_time: { from: '2026-02-01', to: '2026-01-01' } }, { search_params: { post_time_from: '2026-02-01', post_time_to: '2026-01-01' } }]) {
      const res = await post(body)
      expect(res.status).toBe(400)
      expect(res.json.error).toMatch(/^(shared_time|post_time).from must not be after (shared_time|post_time).to$/)
    }
  })

  it('spark: a range object missing a bound is 400 (use the flat key for one bound) (spec: Sponsored-video codes)', async () => {
    const res = await post({ search_params: { shared_time: { from: mid } } })
    expect(res.status).toBe(400)
    expect(res.json.error).toMatch(/shared_time/)
  })
})

describe('spark list: GET form (spec: Sponsored-video codes; Conventions 4)', () => {
  it.each([
    ['flat range keys and inline filters', 'page_size=100&include_total=true&shared_time_from=2025-09-01&expired=false', { page_size: 100, include_total: true, shared_time_from: '2025-09-01', expired: false }],
    ['deepObject ranges and repeated statuses', 'page_size=100&shared_time[from]=2025-06-01&shared_time[to]=2026-03-10&status=NOT_DELIVERING&status=DELIVERING', { page_size: 100, shared_time: { from: '2025-06-01', to: '2026-03-10' }, status: ['NOT_DELIVERING', 'DELIVERING'] }],
    ['search_params as a deep object with a sort', 'page_size=3&page_number=2&search_params[sort_by]=ad_spend&search_params[sort_direction]=ASC&search_params[handle]=a', { page_size: 3, page_number: 2, search_params: { sort_by: 'ad_spend', sort_direction: 'ASC', handle: 'a' } }],
  ])('spark: GET with %s answers as POST with the same body', async (_, query, body) => {
    const viaGet = await call('GET', query)
    const viaPost = await post(body)
    expect(viaGet.status).toBe(200)
    expect(viaGet.json).toEqual(viaPost.json)
  })
  it.each(['{bad', '', '{"sort_by":"ad_spend"', "{'sort_by':'ad_spend'}"])('spark: GET with search_params=%j, not JSON, is 400 naming the parameter and its syntax (as a malformed body is), not a wrong type (spec: Sponsored-video codes; Errors)', async (text) => {
    const res = await call('GET', `page_size=3&search_params=${encodeURIComponent(text)}`)
    expect(res.status).toBe(400)
    expect(res.json.error).toMatch(/^Malformed JSON in query parameter search_params: \S/)
  })

  it('spark: GET with search_params that is JSON of the wrong type is 400 naming its type (spec: Sponsored-video codes; Errors)', async () => {
    const res = await call('GET', `search_params=${encodeURIComponent('"ad_spend"')}`)
    expect(res.status).toBe(400)
    expect(res.json.error).toMatch(/^search_params must be object/)
  })
})

describe('spark list: paging and counts (spec: Sponsored-video codes; Limits)', () => {
  const all = async () => (await post({ page_size: 100, search_params: { sort_by: 'shared_time', sort_direction: 'ASC' } })).json.data.results.map((r: any) => r.spark_code) as string[]

  it('spark: page_size defaults to 10 and page_offset to 0 (spec: Sponsored-video codes)', async () => {
    const res = await post({})
    expect(res.json.data).toMatchObject({ page_size: 10, page_offset: 0, has_more: data.sparkCodes.length > 10, total_count: null })
    expect(res.json.data.results).toHaveLength(Math.min(10, data.sparkCodes.length))
  })

  it('spark: page_offset skips rows; page_number (1-based) overrides page_offset (spec: Sponsored-video codes)', async () => {
    const order = await all()
    const sort = { sort_by: 'shared_time', sort_direction: 'ASC' }
    const byOffset = await post({ page_size: 4, page_offset: 3, search_params: sort })
    expect(byOffset.json.data.results.map((r: any) => r.spark_code)).toEqual(order.slice(3, 7))
    expect(byOffset.json.data.page_offset).toBe(3)
    const byPage = await post({ page_size: 4, page_offset: 3, page_number: 3, search_params: sort })
    expect(byPage.json.data.results.map((r: any) => r.spark_code)).toEqual(order.slice(8, 12))
    expect(byPage.json.data).toMatchObject({ page_offset: 8, has_more: order.length > 12 })
  })

  it('spark: page_size max 100: 100 is served, 101 is 400 (spec: Limits, page sizes)', async () => {
    expect((await post({ page_size: 100 })).status).toBe(200)
    const over = await post({ page_size: 101 })
    expect(over.status).toBe(400)
    expect(over.json.error).toMatch(/page_size/)
  })

  it('spark: include_total runs a count (total_count of every matching row); without it total_count is null (spec: Sponsored-video codes)', async () => {
    const counted = await post({ page_size: 2, include_total: true, expired: true })
    expect(counted.json.data.total_count).toBe(expected((c) => c.expired).length)
    expect(counted.json.data.has_more).toBe(counted.json.data.total_count > 2)
    expect((await post({ page_size: 2, include_total: false })).json.data.total_count).toBeNull()
  })

  it('spark: just_count returns only total_count (spec: Sponsored-video codes; Conventions 3)', async () => {
    expect((await post({ just_count: true, status: ['NOT_DELIVERING'] })).json).toEqual({ data: { total_count: expected((c) => c.status === 'NOT_DELIVERING').length } })
  })

  it('spark: results stop at 10,000 rows, by page_offset too: a short page at the cap, then empty; page_number past it is 400 (spec: Limits)', async () => {
    // A shop with more than 10,000 codes: this test's own mock, whose world it may enlarge.
    const big = editableWorldMock({ now: NOW })
    const codes = big.state.world.shopData[big.state.world.shops[0]!.shop_id]!.sparkCodes
    codes.push(...Array.from({ length: 10_050 }, (_, i) => ({ ...codes[0]!, spark_code: `#DEPTH${String(i).padStart(6, '0')}` })))
    const bigPost = (body: Record<string, unknown>) => big.post('/spark/list', body)
    const nearCap = await bigPost({ page_size: 10, page_offset: 9_995, include_total: true })
    expect(nearCap.json.data.results).toHaveLength(5)
    expect(nearCap.json.data).toMatchObject({ has_more: false, total_count: codes.length })
    const atCap = await bigPost({ page_size: 10, page_offset: 10_000 })
    expect(atCap.json.data).toMatchObject({ results: [], has_more: false })
    expect((await bigPost({ page_size: 100, page_number: 100 })).json.data.results).toHaveLength(100)
    expect((await bigPost({ page_size: 100, page_number: 101 })).status).toBe(400)
  })
})

describe('spark list: sorting (spec: Sponsored-video codes: sort_direction ASC/DESC, nulls last)', () => {
  const keyOf: Record<string, (r: any) => string | number | null> = {
    gmv: (r) => r.video_data?.gmv ?? null,
    ad_spend: (r) => r.ad_spend,
    roi: (r) => r.roi,
    cpa: (r) => r.cpa,
    shared_time: (r) => iso(r.shared_time),
    created_at: (r) => iso(r.shared_time),
    auth_start_time: (r) => iso(r.auth_start_time),
    auth_end_time: (r) => iso(r.auth_end_time),
    post_time: (r) => r.video_data?.post_time ?? null,
    status: (r) => r.status,
  }
  it.each(Object.keys(keyOf))('spark: sort_by %s orders both directions with nulls last (spec: Sponsored-video codes)', async (sortBy) => {
    for (const direction of ['ASC', 'DESC']) {
      const res = await post({ page_size: 100, search_params: { sort_by: sortBy, sort_direction: direction } })
      expect(res.json.data).toMatchObject({ sort_by: sortBy, sort_direction: direction })
      const values = (res.json.data.results as any[]).map(keyOf[sortBy]!)
      const firstNull = values.findIndex((v) => v === null)
      if (firstNull >= 0) expect(values.slice(firstNull).every((v) => v === null)).toBe(true)
      const present = values.filter((v) => v !== null)
      const ordered = [...present].sort((a, b) => (typeof a === 'number' ? (a as number) - (b as number) : byCodePoint(String(a), String(b))) * (direction === 'ASC' ? 1 : -1))
      expect(present).toEqual(ordered)
    }
  })

  it('spark: nulls are observable: ad_spend, status and auth_start_time have null rows in this world', () => {
    expect(data.sparkCodes.some((c) => c.ad_spend === null)).toBe(true)
    expect(data.sparkCodes.some((c) => c.auth_start_time === null)).toBe(true)
  })

  it('spark: default sort is shared_time DESC, echoed in the response (decision: the spec gives no default)', async () => {
    const res = await post({ page_size: 100 })
    expect(res.json.data).toMatchObject({ sort_by: 'shared_time', sort_direction: 'DESC' })
    const days = (res.json.data.results as any[]).map((r) => iso(r.shared_time)!)
    expect(days).toEqual([...days].sort().reverse())
  })
})
