/** Live progress on the terminal (one line per rule as it finishes) and the summary at the end. */
import { warningsOf, type RunReport } from '../report.ts'
import { catalogue } from '../catalogue.ts'
import { connectorRules } from '../rules/connector/run.ts'
import type { RuleOutcome } from '../types.ts'

/** Why a rule is SHOULD (its inference), by id: live outcomes come straight from the runner. */
const inferredById = new Map<string, string | undefined>([...catalogue, ...connectorRules].map((r) => [r.id, r.inferred]))

export interface TerminalOptions {
  write?: (text: string) => void
  color?: boolean
}

export function createTerminalReporter({ write = (s) => process.stdout.write(s), color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR }: TerminalOptions = {}) {
  const paint = (code: number, s: string) => (color ? `\u001b[${code}m${s}\u001b[0m` : s)
  const mark = (o: RuleOutcome) => {
    if (o.status === 'pass') return paint(32, 'PASS')
    if (o.status === 'skip') return paint(90, 'SKIP')
    if (o.level === 'SHOULD') return paint(33, 'WARN')
    return paint(31, o.status === 'error' ? 'ERR ' : 'FAIL')
  }
  let done = 0
  let total = 0
  return {
    start(target: string, ruleCount: number): void {
      total = ruleCount
      write(`shoptwin conformance: ${ruleCount} rules against ${target}\n`)
    },
    /** A rule that polls says what it waits for (`halo.refreshing-then-ok: waiting for the storefront build, 12 s of 60 s`). */
    waiting(ruleId: string, what: string): void {
      write(`${paint(90, `[${String(done + 1).padStart(String(total).length)}/${total}]`)} ${paint(90, `${ruleId}: ${what}`)}\n`)
    },
    outcome(o: RuleOutcome): void {
      done++
      const counter = `[${String(done).padStart(String(total).length)}/${total}]`
      const ops = o.operations.length ? ` ${paint(90, o.operations.slice(0, 3).join(', ') + (o.operations.length > 3 ? ` +${o.operations.length - 3}` : ''))}` : ''
      const inferred = o.level === 'SHOULD' ? (o.inferred ?? inferredById.get(o.id)) : undefined
      write(`${counter} ${mark(o)} ${o.id} [${o.level}${inferred ? ', inferred' : ''}]${ops} ${paint(90, `${o.durationMs} ms`)}\n`)
      if (inferred && o.status !== 'pass' && o.status !== 'skip') write(`     ${paint(33, `inferred: ${inferred}`)}\n`)
      if (o.status === 'skip' && o.reason) write(`     ${paint(90, o.reason)}\n`)
      if (o.status === 'error' && o.reason) write(`     ${o.reason}\n`)
      for (const f of o.failures.slice(0, 3)) write(`     ${f.operation ? `${f.operation}: ` : ''}${f.message}\n       expected ${f.expected}\n       received ${f.received.slice(0, 200)}\n`)
      if (o.failures.length > 3) write(`     … ${o.failures.length - 3} more\n`)
      // The warnings a rule noted besides its outcome (a passing rule's too): counted in the summary, so shown.
      for (const w of o.warnings.slice(0, 3)) write(`     ${paint(33, 'warning')} ${w.operation ? `${w.operation}: ` : ''}${w.message}\n`)
      if (o.warnings.length > 3) write(`     … ${o.warnings.length - 3} more warnings\n`)
    },
    summary(report: RunReport, written: string[]): void {
      const s = report.summary
      const warnRules = report.outcomes.filter((o) => warningsOf(o).length).length
      write(`\n${s.passed} passed, ${s.mustFailed} MUST failed, ${s.shouldFailed} SHOULD not met, ${s.skipped} skipped; ${s.warnings} warning${s.warnings === 1 ? '' : 's'}${s.warnings ? ` on ${warnRules} rule${warnRules === 1 ? '' : 's'}` : ''}\n`)
      write(`operations exercised: ${s.exercised}/${s.operations}\n`)
      for (const error of report.runErrors) write(`run error: ${error}\n`)
      for (const path of written) write(`report: ${path}\n`)
      const [head, ...rest] = report.verdictText.split(': ')
      const tone = report.verdict === 'certified' ? 32 : report.verdict === 'not certified' ? 31 : 33
      write(`${paint(tone, head!)}: ${rest.join(': ')}\n`)
      for (const m of report.incomplete.mustNotRun.slice(0, 10)) write(`     ${paint(90, `not run: ${m.id} (${m.reason})`)}\n`)
      if (report.incomplete.mustNotRun.length > 10) write(`     ${paint(90, `… ${report.incomplete.mustNotRun.length - 10} more`)}\n`)
    },
  }
}
