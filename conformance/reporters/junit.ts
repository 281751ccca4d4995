/**
 * JUnit XML for CI systems: one testsuite per area, one testcase per rule. SHOULD rules that fail
 * are reported as passed with a system-out note, so that they never fail a CI gate.
 */
import { warningsOf, type RunReport } from '../report.ts'
import type { RuleOutcome } from '../types.ts'
import { describeOutcome } from '../runner/describe.ts'
import { xmlComment, xmlText as escapeXml } from './xml.ts'


function testcase(o: RuleOutcome): string {
  const head = `    <testcase classname="conformance.${escapeXml(o.area)}" name="${escapeXml(`${o.id} [${o.level}${o.inferred ? ', inferred' : ''}] ${o.title}`)}" time="${(o.durationMs / 1000).toFixed(3)}">`
  const lines = [head]
  const detail = (f: RuleOutcome['failures'][number]) =>
    [`${f.operation ?? ''} ${f.message}`, `expected: ${f.expected}`, `received: ${f.received}`, f.exchange ? `reproduce: ${f.exchange.curl}` : ''].filter(Boolean).join('\n')
  if (o.status === 'skip') lines.push(`      <skipped message="${escapeXml(o.reason ?? '')}"/>`)
  else if ((o.status === 'fail' || o.status === 'error') && o.level === 'MUST') {
    const tag = o.status === 'error' ? 'error' : 'failure'
    lines.push(`      <${tag} message="${escapeXml(describeOutcome(o).split('\n')[0])}" type="${o.status}">${escapeXml(o.failures.map(detail).join('\n\n') || (o.reason ?? ''))}</${tag}>`)
  }
  // One `warning:` line per warning, as the summary counts them (report.ts warningsOf).
  const notes = [...(o.level === 'SHOULD' && o.status !== 'pass' && o.status !== 'skip' ? [`SHOULD rule not met (warning${o.inferred ? `; inferred: ${o.inferred}` : ''}): ${describeOutcome(o).split('\n')[0]}`] : []), ...warningsOf(o).map((w) => `warning: ${w.operation ?? ''} ${w.message} (expected ${w.expected}; received ${w.received})`)]
  if (notes.length) lines.push(`      <system-out>${escapeXml(notes.join('\n'))}</system-out>`)
  lines.push('    </testcase>')
  return lines.join('\n')
}

/** MUST rules of the catalogue the run did not select: skipped testcases, so CI shows what was not checked. */
function notSelected(report: RunReport): string[] {
  const ran = new Set(report.outcomes.map((o) => o.id))
  return report.incomplete.mustNotRun
    .filter((m) => !ran.has(m.id))
    .map((m) => `    <testcase classname="conformance.${escapeXml(m.id.split('.')[0]!)}" name="${escapeXml(`${m.id} [MUST]`)}" time="0.000">\n      <skipped message="${escapeXml(m.reason)}"/>\n    </testcase>`)
}

export function junitReport(report: RunReport): string {
  const areas = [...new Set(report.outcomes.map((o) => o.area))]
  const unselected = notSelected(report)
  const suites = areas.map((area) => {
    const outcomes = report.outcomes.filter((o) => o.area === area)
    const failures = outcomes.filter((o) => o.level === 'MUST' && o.status === 'fail').length
    const errors = outcomes.filter((o) => o.level === 'MUST' && o.status === 'error').length
    const skipped = outcomes.filter((o) => o.status === 'skip').length
    const time = outcomes.reduce((s, o) => s + o.durationMs, 0) / 1000
    return [
      `  <testsuite name="conformance.${escapeXml(area)}" tests="${outcomes.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time.toFixed(3)}" timestamp="${report.startedAt}">`,
      ...outcomes.map(testcase),
      '  </testsuite>',
    ].join('\n')
  })
  if (unselected.length) {
    suites.push([`  <testsuite name="conformance.not-selected" tests="${unselected.length}" failures="0" errors="0" skipped="${unselected.length}" time="0.000" timestamp="${report.startedAt}">`, ...unselected, '  </testsuite>'].join('\n'))
  }
  const s = report.summary
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    xmlComment(`${report.verdictText}; ${s.warnings} warning${s.warnings === 1 ? '' : 's'}`),
    `<testsuites name="${escapeXml(`${report.tool}: ${report.target}`)}" tests="${s.total + unselected.length}" failures="${report.outcomes.filter((o) => o.level === 'MUST' && o.status === 'fail').length}" errors="${report.outcomes.filter((o) => o.level === 'MUST' && o.status === 'error').length}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n')
}
