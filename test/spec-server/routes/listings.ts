/**
 * The paged listings, with the limits the service document gives (spec: Conventions 6, Limits:
 * pagination depth, sample list depth, page sizes) and each listing's own envelope. The spec
 * server's shops have creators, sample requests and nothing else to list (no videos, ads or
 * social campaigns): those listings answer their envelope over no rows.
 *
 * Readings where the spec is silent (each a documented choice, not the mock's):
 * - "max N" (no clamp stated, no 400 in the Errors table): a larger page_size is served as N.
 * - Depth caps ("results stop at 10,000 rows"; sample lists "at most 1000"): a page past the cap
 *   is an empty page with has_more false; a page across it stops at the cap.
 */
import { apiError } from '../errors.ts'
import { AFFILIATES, SAMPLE_REQUESTS } from '../world.ts'
import type { Define } from '../index.ts'

type Body = Record<string, any>
type Row = Record<string, unknown>

/** One page of a listing, as the handler computed it. */
interface Page {
  rows: Row[]
  total: number
  pageNumber: number
  pageSize: number
  offset: number
  hasMore: boolean
}

interface Listing {
  path: string
  /** `page_number` (Conventions 6) or `page` (ads, social). */
  pageParam: 'page_number' | 'page'
  defaultSize: number
  /** `clamp`: "clamp 1-N"; `max`: "max N"; absent: no page-size limit shown (the depth cap still holds). */
  limit?: { mode: 'clamp' | 'max'; max: number }
  depth: 1000 | 10_000
  /** Where a required date range is: top-level `date_range` or `search_params.date_range`. */
  requiresDateRange?: 'body' | 'search_params'
  activePaidPlan?: boolean
  justCount?: boolean
  rows?: (shopId: string, body: Body) => Row[]
  answer: (page: Page, body: Body) => unknown
}

const DEPTH = 10_000

function positiveInt(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === null) return fallback
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isInteger(n)) throw apiError(400, `${field} must be an integer`)
  return n
}

function pageSizeOf(listing: Listing, body: Body): number {
  const asked = positiveInt(body.page_size, 'page_size', listing.defaultSize)
  if (listing.limit?.mode === 'clamp') return Math.min(listing.limit.max, Math.max(1, asked))
  if (asked < 1) throw apiError(400, 'page_size must be at least 1')
  return listing.limit ? Math.min(listing.limit.max, asked) : asked
}

function dateRangeGiven(listing: Listing, body: Body): boolean {
  const range = listing.requiresDateRange === 'search_params' ? body.search_params?.date_range : body.date_range
  return Boolean(range && typeof range === 'object' && typeof range.from === 'string' && typeof range.to === 'string')
}

/** The rows of one page: offset from the page number (1-based), cut at the depth cap. */
function paginate(listing: Listing, all: Row[], body: Body): Page {
  const pageSize = pageSizeOf(listing, body)
  const pageNumber = positiveInt(body[listing.pageParam], listing.pageParam, 1)
  if (pageNumber < 1) throw apiError(400, `${listing.pageParam} must be at least 1`)
  let offset = (pageNumber - 1) * pageSize
  // spec: Sponsored-video codes: page_number (1-based) overrides page_offset if set.
  if (listing.path === '/spark/list' && body.page_number === undefined && body.page_offset !== undefined) offset = positiveInt(body.page_offset, 'page_offset', 0)
  if (offset < 0) throw apiError(400, 'page_offset must be at least 0')
  const visible = all.slice(0, listing.depth)
  const end = Math.min(offset + pageSize, visible.length)
  const rows = offset < end ? visible.slice(offset, end) : []
  return { rows, total: all.length, pageNumber, pageSize, offset, hasMore: end < visible.length && offset < visible.length }
}

const searchRows = (shopId: string, all: Array<Row & { shop_id: string; handle: string }>, body: Body) => {
  const handle = typeof body.filters?.handle === 'string' ? body.filters.handle.toLowerCase().replace(/^@/, '') : ''
  return all.filter((r) => r.shop_id === shopId && (!handle || r.handle.includes(handle)))
}

const sampleRows = (shopId: string, body: Body) => {
  const statuses = body.filters?.sample_status
  return searchRows(shopId, SAMPLE_REQUESTS, body).filter((r) => !Array.isArray(statuses) || statuses.includes(r.status))
}

const contentPage = (p: Page) => ({ data: { results: p.rows, has_more: p.hasMore, page_size: p.pageSize, page_offset: p.offset } })
const timeseriesPage = (p: Page) => ({ data: p.rows, has_more: p.hasMore, total_count: p.total })
const sortOf = (body: Body, fallback: string, allowed?: string[]) => (typeof body.sort_by === 'string' && (!allowed || allowed.includes(body.sort_by)) ? body.sort_by : fallback)
const directionOf = (body: Body) => (typeof body.sort_direction === 'string' ? body.sort_direction.toUpperCase() : 'DESC')
const adsPage = (key: string, extra: (b: Body) => Row = () => ({})) => (p: Page, b: Body) => ({
  data: { [key]: p.rows, total_count: p.total, page: p.pageNumber, page_size: p.pageSize, ...extra(b), sort_by: sortOf(b, 'created_at'), sort_direction: directionOf(b) },
})
const socialPage = (key: string, sortDefault: string) => (p: Page, b: Body) => ({
  data: { [key]: p.rows, total_count: p.total, page: p.pageNumber, page_size: p.pageSize, sort_by: sortOf(b, sortDefault), sort_direction: directionOf(b) },
})

const LISTINGS: Listing[] = [
  {
    path: '/affiliate/samples/list',
    pageParam: 'page_number',
    defaultSize: 10,
    limit: { mode: 'max', max: 100 },
    depth: 1000,
    justCount: true,
    rows: sampleRows,
    // spec: "total_count (filled on page 1 or with just_count)".
    answer: (p) => ({ data: { results: p.rows, page_number: p.pageNumber, page_size: p.pageSize, total_count: p.pageNumber === 1 ? p.total : null, has_more: p.hasMore } }),
  },
  {
    path: '/affiliate/samples/refundable/list',
    pageParam: 'page_number',
    defaultSize: 10,
    limit: { mode: 'max', max: 100 },
    depth: 1000,
    justCount: true,
    answer: (p) => ({ data: { results: p.rows, page: p.pageNumber, page_size: p.pageSize, total_count: p.total, has_more: p.hasMore } }),
  },
  {
    path: '/affiliate/crm/list',
    pageParam: 'page_number',
    defaultSize: 20,
    depth: DEPTH,
    justCount: true,
    rows: (shopId, body) => searchRows(shopId, AFFILIATES, body),
    // spec: Conventions 2: CRM Search returns results, has_more, page_size, page_offset at the top level.
    answer: (p) => ({ results: p.rows, has_more: p.hasMore, page_size: p.pageSize, page_offset: p.offset }),
  },
  { path: '/affiliate/videos/list', pageParam: 'page_number', defaultSize: 20, depth: DEPTH, justCount: true, answer: contentPage },
  { path: '/affiliate/slideshows/list', pageParam: 'page_number', defaultSize: 20, limit: { mode: 'max', max: 100 }, depth: DEPTH, justCount: true, answer: contentPage },
  {
    path: '/affiliate/lives/list',
    pageParam: 'page_number',
    defaultSize: 20,
    depth: DEPTH,
    justCount: true,
    answer: (p, b) => ({ data: { results: p.rows, page_size: p.pageSize, page_offset: p.offset, sort_by: sortOf(b.filters ?? {}, 'gmv'), sort_direction: directionOf(b.filters ?? {}), has_more: p.hasMore } }),
  },
  {
    path: '/spark/list',
    pageParam: 'page_number',
    defaultSize: 10,
    limit: { mode: 'max', max: 100 },
    depth: DEPTH,
    justCount: true,
    // spec: "total_count null when include_total is false".
    answer: (p, b) => ({
      data: { results: p.rows, page_size: p.pageSize, page_offset: p.offset, sort_by: sortOf(b.search_params ?? {}, 'shared_time'), sort_direction: directionOf(b.search_params ?? {}), has_more: p.hasMore, total_count: b.include_total === true ? p.total : null },
    }),
  },
  { path: '/timeseries/products', pageParam: 'page_number', defaultSize: 20, depth: DEPTH, answer: timeseriesPage },
  { path: '/timeseries/skus', pageParam: 'page_number', defaultSize: 20, depth: DEPTH, answer: timeseriesPage },
  { path: '/timeseries/affiliates', pageParam: 'page_number', defaultSize: 20, depth: DEPTH, answer: timeseriesPage },
  { path: '/timeseries/videos', pageParam: 'page_number', defaultSize: 20, depth: DEPTH, answer: timeseriesPage },
  { path: '/timeseries/slideshows', pageParam: 'page_number', defaultSize: 20, depth: DEPTH, requiresDateRange: 'search_params', answer: timeseriesPage },
  {
    path: '/ads/campaigns',
    pageParam: 'page',
    defaultSize: 10,
    limit: { mode: 'clamp', max: 100 },
    depth: DEPTH,
    requiresDateRange: 'body',
    activePaidPlan: true,
    answer: (p, b) => {
      const zero = { ad_spend: 0, ad_roi: 0, ad_revenue: 0 }
      const sortBy = sortOf(b, 'ad_spend', ['ad_spend', 'ad_revenue', 'orders', 'campaign_name', 'operation_status', 'budget', 'roas_target'])
      return { data: { totals: { ...zero, prev: zero }, campaigns: p.rows, total_count: p.total, page: p.pageNumber, page_size: p.pageSize, sort_by: sortBy, sort_direction: directionOf(b) } }
    },
  },
  {
    path: '/ads/creatives',
    pageParam: 'page',
    defaultSize: 5,
    limit: { mode: 'clamp', max: 1000 },
    depth: DEPTH,
    activePaidPlan: true,
    answer: (p, b) => ({ data: { creatives: p.rows, total_count: p.total, page: p.pageNumber, page_size: p.pageSize, available_statuses: [], sort_by: sortOf(b, 'ad_spend'), sort_direction: directionOf(b) } }),
  },
  { path: '/ads/excluded-creatives', pageParam: 'page', defaultSize: 20, limit: { mode: 'max', max: 100 }, depth: DEPTH, activePaidPlan: true, answer: adsPage('exclusions') },
  {
    path: '/ads/boosted-creatives',
    pageParam: 'page',
    defaultSize: 20,
    limit: { mode: 'max', max: 100 },
    depth: DEPTH,
    activePaidPlan: true,
    answer: adsPage('sessions', (b) => ({ include_ended: b.include_ended === true })),
  },
  { path: '/social/campaigns', pageParam: 'page', defaultSize: 10, limit: { mode: 'max', max: 100 }, depth: DEPTH, requiresDateRange: 'body', answer: socialPage('campaigns', 'spend') },
  { path: '/social/adsets', pageParam: 'page', defaultSize: 10, limit: { mode: 'max', max: 100 }, depth: DEPTH, requiresDateRange: 'body', answer: socialPage('adsets', 'spend') },
  { path: '/social/ads', pageParam: 'page', defaultSize: 10, limit: { mode: 'max', max: 1000 }, depth: DEPTH, requiresDateRange: 'body', answer: socialPage('ads', 'spend') },
  { path: '/social/programs', pageParam: 'page', defaultSize: 10, limit: { mode: 'max', max: 100 }, depth: DEPTH, answer: socialPage('programs', 'created_at') },
  { path: '/social/programs/creators', pageParam: 'page', defaultSize: 10, limit: { mode: 'max', max: 100 }, depth: DEPTH, answer: socialPage('creators', 'joined_at') },
]

/** spec: Versioning: "The ads endpoints are also reachable under a /v1/ prefix". */
const ALIASES: Record<string, string> = Object.fromEntries(['campaigns', 'creatives', 'excluded-creatives', 'boosted-creatives'].map((n) => [`/v1/ads/${n}`, `/ads/${n}`]))

export function listingRoutes(define: Define): void {
  const paths = [...LISTINGS.map((l) => [l.path, l] as const), ...Object.entries(ALIASES).map(([alias, path]) => [alias, LISTINGS.find((l) => l.path === path)!] as const)]
  for (const [path, listing] of paths) {
    define('POST', path, { shop: true, activePaidPlan: listing.activePaidPlan }, (c) => {
      const body = c.get('body')
      if (listing.requiresDateRange && !dateRangeGiven(listing, body)) throw apiError(400, 'Missing date_range (from/to)')
      const rows = listing.rows?.(c.get('shop').shop_id, body) ?? []
      // spec: Conventions 3: "Listing endpoints with just_count: true return only total_count".
      if (listing.justCount && body.just_count === true) return c.json(listing.path === '/affiliate/crm/list' ? { total_count: rows.length } : { data: { total_count: rows.length } })
      return c.json(listing.answer(paginate(listing, rows, body), body) as object)
    })
  }
}
