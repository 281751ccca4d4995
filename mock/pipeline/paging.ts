/**
 * Page sizes and the depth cap (spec: Limits; Conventions 6). Each operation's `x-paging` says
 * whether the spec clamps (campaigns 1-100, creatives 1-1000) or rejects, and its depth cap
 * (10,000 rows; 1,000 on the sample lists).
 */
import type { OperationInfo } from '../../openapi/index.ts'
import { apiError } from '../respond.ts'
import type { Step } from './compose.ts'
import { pagingDecision } from '../trace/decisions.ts'

export const DEFAULT_DEPTH_CAP = 10_000

/** The window of rows one request may see. */
export interface PageWindow {
  /** 1-based page number. */
  page: number
  /** The page size after the clamp. */
  pageSize: number
  /** Rows skipped: (page - 1) x pageSize, at most Number.MAX_SAFE_INTEGER. */
  offset: number
  /** Rows this page may return: pageSize, less where the depth cap cuts the page short (0 beyond it). */
  limit: number
  depthCap: number
  /** Rows the listing held for the request's query before the page cut (its depth), set by `paginate`. */
  rows?: number
}

/** The page window of a request, or a 400 where the operation rejects out-of-range values. */
export function pageWindow(op: OperationInfo, input: Record<string, unknown>): PageWindow | undefined {
  const paging = op.paging
  if (!paging) return undefined
  const { sizeParam, pageParam = 'page_number', defaultSize = 10, max, mode, depthCap = DEFAULT_DEPTH_CAP } = paging
  const rawSize = input[sizeParam]
  const rawPage = input[pageParam]
  let pageSize = typeof rawSize === 'number' && Number.isFinite(rawSize) ? Math.trunc(rawSize) : defaultSize
  let page = typeof rawPage === 'number' && Number.isFinite(rawPage) ? Math.trunc(rawPage) : 1
  if (mode === 'clamp') {
    pageSize = Math.min(max, Math.max(1, pageSize))
    page = Math.max(1, page)
  } else {
    if (pageSize > max) throw apiError(400, `${sizeParam} must be at most ${max}`)
    if (pageSize < 1) throw apiError(400, `${sizeParam} must be at least 1`)
    if (page < 1) throw apiError(400, `${pageParam} must be at least 1`)
  }
  // Counted exactly, as far as a JSON integer is exact (2^53 - 1, RFC 8259 6): a clamped listing takes any page
  // number, and (1e308 - 1) x 2 is Infinity, which JSON writes as null where page_offset is an integer. Such a
  // page starts far past the depth cap either way, so it is empty as before.
  const offset = Math.min((page - 1) * pageSize, Number.MAX_SAFE_INTEGER)
  if (mode === 'reject' && page * pageSize > depthCap) throw apiError(400, `${pageParam} x ${sizeParam} must not exceed ${depthCap}`)
  // spec: Limits: results stop at the depth cap.
  const limit = Math.max(0, Math.min(pageSize, depthCap - offset))
  return { page, pageSize, offset, limit, depthCap }
}

/** The rows of one page and whether more exist (within the depth cap); notes the listing's depth on the window. */
export function paginate<T>(rows: readonly T[], window: PageWindow): { rows: T[]; hasMore: boolean } {
  // The listing's depth, for client certification (did the client page a listing deeper than its cap?).
  window.rows = rows.length
  const pageRows = rows.slice(window.offset, window.offset + window.limit)
  const end = window.offset + window.limit
  return { rows: pageRows, hasMore: end < Math.min(rows.length, window.depthCap) }
}

/** Computes `ctx.page` for operations with `x-paging`. */
export const paging = (): Step =>
  function paging(ctx, next) {
    ctx.page = pageWindow(ctx.calledOp, ctx.input)
    if (ctx.page) ctx.trace?.decide(pagingDecision, ctx.input[ctx.calledOp.paging!.sizeParam], ctx.page)
    return next()
  }
