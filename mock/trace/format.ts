/**
 * A trace as text a person reads in a failing test's output:
 *
 *   expect(res.status, formatTrace(explain(res))).toBe(201)
 *
 * One line for the exchange, one per decision (step, outcome, summary, the spec section behind it);
 * every failing field of a validation under its line.
 */
import type { Trace } from './types.ts'

export interface FormatTraceOptions {
  /** Add each decision's figures as JSON (default false: only the failing fields are listed). */
  details?: boolean
  /** Add the request and response bodies (default false). */
  bodies?: boolean
}

const compact = (value: unknown): string => {
  const text = JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 297)}...` : text
}

/** Readable multi-line text of a trace (or a note that there is none). */
export function formatTrace(trace: Trace | undefined, { details = false, bodies = false }: FormatTraceOptions = {}): string {
  if (!trace) return 'shoptwin: no trace (tracing off, no x-shoptwin-trace header, or the trace left the ring buffer)'
  const lines = [`shoptwin trace ${trace.id}: ${trace.method} ${trace.path}${trace.query} -> ${trace.status || 'dropped'} (${trace.operationId ?? 'no operation'}, ${trace.via}, key ${trace.key ?? '-'}, shop ${trace.shop ?? '-'}, ${trace.time})`]
  const width = Math.max(...trace.decisions.map((d) => d.step.length))
  trace.decisions.forEach((d, i) => {
    lines.push(`  ${String(i + 1).padStart(2)}. ${d.step.padEnd(width)}  ${d.outcome.padEnd(9)} ${d.summary}  [spec: ${d.spec}]`)
    const failures = d.detail?.failures
    if (Array.isArray(failures)) for (const f of failures) lines.push(`      - ${String(f)}`)
    if (details && d.detail) lines.push(`      ${compact(d.detail)}`)
  })
  if (bodies) {
    lines.push(`  request body: ${compact(trace.request.body)}`)
    lines.push(`  response body: ${compact(trace.response.body)}`)
  }
  return lines.join('\n')
}
