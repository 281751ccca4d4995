/** Helpers the client rules share: how a request is named in a finding, retries, scoping. */
import type { ClientFailure, Grade, GradedRequest } from './types.ts'

/** `#12 POST /automations/create → 503 (produced: 503)`: what the twin (or the proxy) produced on it, in the report's word. */
export const describeRequest = (r: GradedRequest): string => `#${r.seq} ${r.method} ${r.path}${r.query} → ${r.status === 0 ? 'connection dropped' : r.status}${r.injected ? ` (produced: ${r.injected})` : ''}`

export const notExercised = (reason: string): Grade => ({ exercised: false, reason })

let listedFindings = 20

/** Runs `grade` with every finding listed (the proxy grades in windows and counts findings across them itself). */
export function withEveryFinding<T>(grade: () => T): T {
  const before = listedFindings
  listedFindings = Infinity
  try {
    return grade()
  } finally {
    listedFindings = before
  }
}

/** A graded rule; at most 20 findings listed (the count says how many there were). */
export function graded(failures: ClientFailure[], evidence: Iterable<number>): Grade {
  const max = listedFindings
  const listed = failures.length > max ? [...failures.slice(0, max), { message: `… and ${failures.length - max} more like these`, expected: '', received: '', requests: [] }] : failures
  return { exercised: true, failures: listed, evidence: [...new Set(evidence)].sort((a, b) => a - b) }
}

/** A write that failed in transit: a 5xx answer or a dropped connection. */
export const failedInTransit = (r: GradedRequest): boolean => r.status === 0 || r.status >= 500

/** A write the twin held back (`slow`): the client may have timed out; a retry shows it did. */
export const heldBack = (r: GradedRequest): boolean => r.injected?.startsWith('slow') === true

/** The same write again: same operation, shop and body. */
export const sameWrite = (a: GradedRequest, b: GradedRequest): boolean => a.op.operationId === b.op.operationId && a.shopId === b.shopId && a.bodyText === b.bodyText

/** The client's next attempt at `failed`: the first later request carrying its key, else the first later one of the same write. */
export function retryOf(failed: GradedRequest, requests: GradedRequest[]): GradedRequest | undefined {
  const later = requests.filter((r) => r.seq > failed.seq && r.op.operationId === failed.op.operationId && r.shopId === failed.shopId)
  return (failed.idempotencyKey !== null ? later.find((r) => r.idempotencyKey === failed.idempotencyKey) : undefined) ?? later.find((r) => sameWrite(r, failed))
}

/** Page number and size of a paged request, as the twin reads them (defaults when absent). */
export function pageOf(r: GradedRequest): { page: number; size: number } | undefined {
  const paging = r.op.paging
  if (!paging) return undefined
  const size = r.input[paging.sizeParam]
  const page = r.input[paging.pageParam ?? 'page_number']
  return { page: typeof page === 'number' ? page : 1, size: typeof size === 'number' ? size : (paging.defaultSize ?? 10) }
}

const UNSCOPING = new Set(['page', 'page_number', 'page_size', 'page_offset', 'sort_by', 'sort_direction', 'just_count', 'include_total', 'format', 'columns', 'csv_limit'])

/** Whether a listing request narrows its rows (filters, ids, date ranges) rather than reading everything. */
export function isScoped(input: Record<string, any>): boolean {
  return Object.entries(input).some(([key, value]) => {
    if (UNSCOPING.has(key) || value === null || value === undefined) return false
    if (typeof value === 'object' && !Array.isArray(value)) return isScoped(value)
    return !(Array.isArray(value) && value.length === 0)
  })
}
