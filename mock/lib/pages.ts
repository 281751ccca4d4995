/**
 * Page envelopes (spec: Conventions 2 and 3). The pipeline's paging step has already clamped or
 * refused the page window (`ctx.page`); these cut the rows and shape the answer, one function per
 * envelope the spec shows.
 */
import type { PagedContext } from '../context.ts'
import { paginate } from '../pipeline/paging.ts'

/** True when the request asks for the count alone (`just_count: true`, spec: Conventions 3). */
const countOnlyAsked = (input: object): boolean => (input as { just_count?: unknown }).just_count === true

/** `{data: {total_count}}` for `just_count: true` (spec: Conventions 3). */
export const countOnly = (total: number) => ({ status: 200, body: { data: { total_count: total } } })

/** `{data, has_more, total_count}`: the timeseries searches (spec: Conventions 2). */
export function dataPage<T>(ctx: PagedContext, rows: readonly T[], finish: (row: T) => unknown = (row) => row) {
  const { rows: page, hasMore } = paginate(rows, ctx.page)
  return { status: 200, body: { data: page.map(finish), has_more: hasMore, total_count: rows.length } }
}

/** `{data: {results, has_more, page_size, page_offset, ...extra}}`, or the count alone with just_count: videos, slideshows, LIVEs. */
export function offsetResultsPage<T>(ctx: PagedContext, sorted: readonly T[], extra: Record<string, unknown> = {}, finish: (row: T) => unknown = (row) => row) {
  if (countOnlyAsked(ctx.input)) return countOnly(sorted.length)
  const { rows, hasMore } = paginate(sorted, ctx.page)
  return { status: 200, body: { data: { results: rows.map(finish), has_more: hasMore, page_size: ctx.page.pageSize, page_offset: ctx.page.offset, ...extra } } }
}

/**
 * `{data: {results, <pageKey>, page_size, total_count, has_more}}`, or the count alone with
 * just_count: the sample lists (`total_count` null after the first page unless `countOnEveryPage`).
 * `finish` builds a row of the page (rows of the other pages are never built).
 */
export function numberedResultsPage<T>(ctx: PagedContext, rows: readonly T[], pageKey: 'page_number' | 'page', countOnEveryPage: boolean, finish: (row: T) => unknown = (row) => row) {
  if (countOnlyAsked(ctx.input)) return countOnly(rows.length)
  const window = ctx.page
  const { rows: pageRows, hasMore } = paginate(rows, window)
  const total_count = countOnEveryPage || window.page === 1 ? rows.length : null
  return {
    status: 200,
    body: { data: { results: pageRows.map(finish), [pageKey]: window.page, page_size: window.pageSize, total_count, has_more: hasMore } },
  }
}

/** `{page, page_size}` of the answer and the rows of the requested page (ads, social: the area shapes the envelope). */
export function numberedPage<T>(ctx: PagedContext, rows: readonly T[]): { rows: T[]; page: number; page_size: number } {
  const window = ctx.page
  return { rows: paginate(rows, window).rows, page: window.page, page_size: window.pageSize }
}
