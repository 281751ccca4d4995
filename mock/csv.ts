/**
 * spec: Conventions 5: endpoints marked CSV accept `format: csv` and return a presigned download
 * link instead of inline JSON, with optional `columns` (fields to export) and `csv_limit` (cap on
 * exported rows). The mock has no file store, so its link is a `data:` URI that holds the CSV
 * itself: a client can fetch it (`await (await fetch(url)).text()`) and read what it exported.
 */
import type { ApiResult, RequestContext } from './context.ts'
import { apiError } from './respond.ts'

/** How long a link stays valid: not shown by the spec (inferred). */
export const CSV_LINK_TTL_MS = 60 * 60 * 1000

/** True when the request asks for a CSV export. */
export const wantsCsv = (ctx: Pick<RequestContext, 'input'>): boolean => ctx.input.format === 'csv'

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return ''
  const text = Array.isArray(value) ? value.join(';') : typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/**
 * The CSV answer for rows in their answer order: every allowed column unless `columns` picks some
 * (an unknown column is a 400 naming it), at most `csv_limit` rows.
 */
export function csvExport(ctx: Pick<RequestContext, 'input' | 'now'>, rows: ReadonlyArray<Record<string, unknown>>, allowed: readonly string[]): ApiResult {
  const requested = (ctx.input.columns as string[] | undefined)?.length ? (ctx.input.columns as string[]) : allowed
  const unknown = requested.find((c) => !allowed.includes(c))
  if (unknown !== undefined) throw apiError(400, `columns: unknown column ${unknown} (one of ${allowed.join(', ')})`)
  const limit = typeof ctx.input.csv_limit === 'number' ? ctx.input.csv_limit : rows.length
  const exported = rows.slice(0, limit)
  const text = [requested.join(','), ...exported.map((row) => requested.map((c) => cell(row[c])).join(','))].join('\n')
  return {
    status: 200,
    body: {
      data: {
        url: `data:text/csv;charset=utf-8,${encodeURIComponent(text)}`,
        expires_at: new Date(ctx.now.getTime() + CSV_LINK_TTL_MS).toISOString(),
        row_count: exported.length,
      },
    },
  }
}
