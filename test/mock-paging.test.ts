/**
 * Page sizes, depth caps, camelCase input and the clock (spec: Limits; Conventions 4, 6); every paged
 * operation answering the largest page numbers as its contract documents.
 */
import { describe, expect, it } from 'vitest'
import { loadContract, type OperationInfo } from '../openapi/index.ts'
import { acceptCamelCase, createClock, createMockState, paginate, pageWindow, requireDateRange } from '../mock/index.ts'
import { ApiError } from '../mock/respond.ts'
import { sortRows } from '../mock/lib/sort.ts'
import { contractProblem, minimalCall } from '../mock/testing.ts'
import { createInProcessClient } from './support/in-process.ts'

const base = loadContract().byId.get('getShopSps')!
const withPaging = (paging: OperationInfo['paging']): OperationInfo => ({ ...base, paging })
const campaigns = withPaging({ sizeParam: 'page_size', pageParam: 'page', defaultSize: 10, max: 100, mode: 'clamp', depthCap: 10_000 })
const creatives = withPaging({ sizeParam: 'page_size', pageParam: 'page', defaultSize: 5, max: 1000, mode: 'clamp', depthCap: 10_000 })
const samples = withPaging({ sizeParam: 'page_size', pageParam: 'page_number', max: 100, mode: 'reject', depthCap: 1000 })
const status = (fn: () => unknown) => {
  try {
    fn()
    return 200
  } catch (error) {
    return (error as ApiError).status
  }
}

describe('paging (spec: Limits)', () => {
  it('paging: campaigns default 10 and clamp page_size to 1-100 (spec: Sales-max ads)', () => {
    expect(pageWindow(campaigns, {})).toMatchObject({ page: 1, pageSize: 10, offset: 0 })
    expect(pageWindow(campaigns, { page_size: 500 })?.pageSize).toBe(100)
    expect(pageWindow(campaigns, { page_size: 0 })?.pageSize).toBe(1)
  })
  it('paging: creatives default 5 and clamp to 1-1000 (spec: Sales-max ads)', () => {
    expect(pageWindow(creatives, {})?.pageSize).toBe(5)
    expect(pageWindow(creatives, { page_size: 5000 })?.pageSize).toBe(1000)
  })
  it('paging: results stop at 10,000 rows: the page past the cap is empty (spec: Limits)', () => {
    const last = pageWindow(campaigns, { page: 100, page_size: 100 })!
    expect(last).toMatchObject({ offset: 9_900, limit: 100 })
    expect(pageWindow(campaigns, { page: 101, page_size: 100 })!.limit).toBe(0)
    const rows = Array.from({ length: 20_000 }, (_, i) => i)
    expect(paginate(rows, last)).toEqual({ rows: rows.slice(9_900, 10_000), hasMore: false })
  })
  it('paging: the sample list refuses page_size over 100 and page_number x page_size over 1000 (spec: Samples)', () => {
    expect(status(() => pageWindow(samples, { page_size: 101 }))).toBe(400)
    expect(status(() => pageWindow(samples, { page_size: 100, page_number: 10 }))).toBe(200)
    expect(status(() => pageWindow(samples, { page_size: 100, page_number: 11 }))).toBe(400)
  })
  it('paging: has_more is true while rows remain within the cap', () => {
    const rows = [1, 2, 3, 4, 5]
    expect(paginate(rows, pageWindow(campaigns, { page: 1, page_size: 2 })!)).toEqual({ rows: [1, 2], hasMore: true })
    expect(paginate(rows, pageWindow(campaigns, { page: 3, page_size: 2 })!)).toEqual({ rows: [5], hasMore: false })
  })
  it('paging: any page number a clamped listing takes is past the cap with an offset counted as a JSON integer, never Infinity (spec: Limits)', () => {
    for (const page of [1e308, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER]) {
      const window = pageWindow(creatives, { page, page_size: 1000 })!
      expect(Number.isSafeInteger(window.offset), `page ${page}`).toBe(true)
      expect(paginate([1, 2, 3], window)).toEqual({ rows: [], hasMore: false })
    }
  })
  // Found by the robustness fuzz (FUZZ_SEED=1929, FUZZ_RUNS=2000): page_number 1e308 on the CRM, video and LIVE
  // lists answered page_offset null ((1e308 - 1) x page_size is Infinity) where the contract says integer.
  it('paging: every paged operation, GET forms too, answers the largest page numbers as its contract documents (an empty page or a 400), page sizes 1, 2 and its maximum (spec: Limits)', async () => {
    const state = createMockState({ seed: 42, scale: 'small', now: '2026-03-10T12:00:00.000Z', rateLimit: false })
    const client = createInProcessClient(state)
    const shop = state.world.shops.find((s) => s.plan === 'scale' && s.is_active)!
    const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }
    const problems: string[] = []
    const paged = state.contract.operations.filter((op) => op.paging)
    expect(paged.length).toBeGreaterThan(20)
    for (const op of paged) {
      const { sizeParam, pageParam = 'page_number', max } = op.paging!
      const call = minimalCall(state.contract, op, '2026-03-10')
      for (const size of [1, 2, max]) {
        for (const page of [1e308, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER]) {
          const body = op.method === 'GET' ? undefined : JSON.stringify({ ...JSON.parse(call.body ?? '{}'), [sizeParam]: size, [pageParam]: page })
          const query = op.method === 'GET' ? [call.query, `${sizeParam}=${size}`, `${pageParam}=${BigInt(page)}`].filter(Boolean).join('&') : call.query
          const answer = await client.call(op, { path: call.path, query, headers, body })
          const problem = answer.status >= 500 ? `${answer.status} ${answer.text.slice(0, 200)}` : contractProblem(state.contract, op, answer.status, answer.text)
          if (problem) problems.push(`${op.operationId} ${sizeParam} ${size}, ${pageParam} ${page}: ${problem}`)
        }
      }
    }
    expect(problems).toEqual([])
  })
})

describe('input helpers (spec: Conventions 4; Errors)', () => {
  it('camelCase: camelCase and legacy keys become the canonical snake_case ones; canonical keys win', () => {
    const normalize = acceptCamelCase({ sortDir: 'sort_direction', video_id: 'video_ids' })
    expect(normalize({ pageSize: 5, sortBy: 'orders', sortDir: 'ASC', video_id: 'v1', dateRange: { from: 'a', to: 'b' } }, base, loadContract())).toEqual({
      page_size: 5, sort_by: 'orders', sort_direction: 'ASC', video_ids: 'v1', date_range: { from: 'a', to: 'b' },
    })
    expect(normalize({ page_size: 7, pageSize: 5 }, base, loadContract())).toEqual({ page_size: 7 })
  })
  it('requireDateRange: 400 Missing date_range (from/to) unless both bounds are given (spec: Errors)', () => {
    expect(requireDateRange({ date_range: { from: '2026-01-01', to: '2026-01-31' } })).toEqual({ from: '2026-01-01', to: '2026-01-31' })
    for (const input of [{}, { date_range: { from: '2026-01-01' } }, { date_range: null }]) {
      try {
        requireDateRange(input)
        expect.unreachable()
      } catch (error) {
        expect((error as ApiError).body).toEqual({ error: 'Missing date_range (from/to)' })
      }
    }
  })
})

describe('clock', () => {
  it('clock: real time by default, frozen once set, advanced on demand', () => {
    let wall = 1_000_000
    const clock = createClock({ wallClock: () => wall })
    expect(clock.nowMs()).toBe(1_000_000)
    wall += 500
    expect(clock.nowMs()).toBe(1_000_500)
    clock.set('2026-01-01T00:00:00Z')
    wall += 10_000
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z')
    clock.advance(86_400_000)
    expect(clock.today()).toBe('2026-01-02')
    clock.set('2026-01-01T00:00:00Z', { running: true })
    wall += 1000
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:01.000Z')
    clock.useRealTime()
    expect(clock.nowMs()).toBe(wall)
  })
})

describe('sorting (spec: sort_by / sort_direction, nulls last)', () => {
  const rows = ['ab', 'a_b', 'aB', 'a1', 'a.b', null, 'zz'].map((value, i) => ({ value, id: `r${i}` }))

  it('sorting: text sorts by code point in any default locale (. before digits before capitals before _ before lower case), nulls last both ways (spec: Sponsored-video codes, Sales-max ads: sort_direction, nulls last; collation inferred)', () => {
    expect(sortRows(rows, (r) => r.value, 'asc', (r) => r.id).map((r) => r.value)).toEqual(['a.b', 'a1', 'aB', 'a_b', 'ab', 'zz', null])
    expect(sortRows(rows, (r) => r.value, 'DESC', (r) => r.id).map((r) => r.value)).toEqual(['zz', 'ab', 'a_b', 'aB', 'a1', 'a.b', null])
  })

  it('sorting: numbers by value, booleans false first, ties by id ascending so pages are stable (spec: Conventions 6: page-based search; Sales-max ads: sort_by active)', () => {
    const tied = [3, 1, 3, true, false].map((value, i) => ({ value, id: `r${9 - i}` }))
    expect(sortRows(tied.slice(0, 3), (r) => r.value as number, 'desc', (r) => r.id).map((r) => r.id)).toEqual(['r7', 'r9', 'r8'])
    expect(sortRows(tied.slice(3), (r) => r.value as boolean, 'ASC', (r) => r.id).map((r) => r.value)).toEqual([false, true])
  })
})
