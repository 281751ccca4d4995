/** The machine-readable report: every rule, its outcome, the requests it made (keys redacted). */
import type { RunReport } from '../report.ts'

export function jsonReport(report: RunReport): string {
  return `${JSON.stringify(report, null, 2)}\n`
}
