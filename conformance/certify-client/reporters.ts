/**
 * The client certificate: JUnit for CI (a rule not exercised or not applicable is `skipped` with
 * why; SHOULD rules never fail the gate; an inferred rule says so), JSON for machines, and a self-contained HTML certificate in the server
 * suite's style (verdict, rules by area, evidence per rule: the exact requests and their timing).
 */
import { CERTIFICATE_STYLE, esc, levelLabel, provenanceBlock } from '../reporters/html.ts'
import { xmlComment, xmlText as xml } from '../reporters/xml.ts'
import type { RecordedRequest } from '../../mock/pipeline/certification.ts'
import type { ClientReport, ClientRuleOutcome } from './grade.ts'


export function clientJunit(report: ClientReport): string {
  const areas = [...new Set(report.outcomes.map((o) => o.area))]
  const mustFailed = (o: ClientRuleOutcome) => o.level === 'MUST' && o.status === 'fail'
  const skipped = (o: ClientRuleOutcome) => o.status === 'not exercised' || o.status === 'not applicable'
  const testcase = (o: ClientRuleOutcome) => {
    const lines = [`    <testcase classname="certify-client.${xml(o.area)}" name="${xml(`${o.id} [${o.level}${o.inferred ? ', inferred' : ''}] ${o.title}`)}" time="0.000">`]
    if (o.status === 'not exercised' || o.status === 'not applicable') lines.push(`      <skipped message="${xml(`${o.status}: ${o.reason ?? ''}`)}"/>`)
    const detail = o.failures.map((f) => `${f.message}\nexpected: ${f.expected}\nreceived: ${f.received}\nrequests: #${f.requests.join(', #')}`).join('\n\n')
    if (mustFailed(o)) lines.push(`      <failure message="${xml(o.failures[0]?.message ?? '')}" type="fail">${xml(detail)}</failure>`)
    else if (o.status === 'fail') lines.push(`      <system-out>${xml(`SHOULD rule not met (warning${o.inferred ? `; inferred: ${o.inferred}` : ''}):\n${detail}`)}</system-out>`)
    lines.push('    </testcase>')
    return lines.join('\n')
  }
  const suites = areas.map((area) => {
    const rows = report.outcomes.filter((o) => o.area === area)
    return [`  <testsuite name="certify-client.${xml(area)}" tests="${rows.length}" failures="${rows.filter(mustFailed).length}" errors="0" skipped="${rows.filter(skipped).length}" timestamp="${report.startedAt}">`, ...rows.map(testcase), '  </testsuite>'].join('\n')
  })
  const s = report.summary
  return ['<?xml version="1.0" encoding="UTF-8"?>', xmlComment(report.verdictText), `<testsuites name="shoptwin certify-client (profile ${xml(report.profile)}, seed ${report.seed})" tests="${s.rules}" failures="${report.outcomes.filter(mustFailed).length}" errors="${report.runErrors.length}">`, ...suites, '</testsuites>', ''].join('\n')
}

export const clientJson = (report: ClientReport): string => `${JSON.stringify(report, null, 2)}\n`

const VERDICT_CLASS: Record<ClientReport['verdict'], string> = { certified: 'certified', 'passed, not certified': 'partial', 'not certified': 'not-certified' }

/**
 * What stood between the client and the service, in the page's words: the twin under certify-client;
 * `shoptwin proxy` renders the same page for the traffic that passed through it (its clock, the
 * situations it produced, the requests made through it).
 */
export interface ClientPageSetting {
  /** Whose clock the times are on and who produced the situations: `twin` or `proxy`. */
  by: string
  /** The lead line's end: what the client was graded on. */
  gradedOn: string
  /** The paragraph under "What the <by> produced". */
  producedIntro: string
}
export const CERTIFY_CLIENT_PAGE: ClientPageSetting = {
  by: 'twin',
  gradedOn: 'the requests it made to the twin',
  producedIntro: 'Each documented situation, on the requests it was produced on. A rule whose situation never arose is "not exercised", not passed.',
}
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
const anchor = (id: string) => `rule-${id}`

function requestRow(r: RecordedRequest, startMs: number): string {
  return `<tr><td>#${r.seq}</td><td>+${((r.atMs - startMs) / 1000).toFixed(3)} s</td><td><code>${esc(`${r.method} ${r.path}${r.query}`)}</code></td><td>${esc(r.operationId)}</td><td>${esc(r.keyId ?? 'no key')}</td><td>${esc(r.idempotencyKey ?? '')}</td><td>${r.status === 0 ? 'dropped' : r.status}${r.retryAfter !== null ? ` (Retry-After ${r.retryAfter})` : ''}</td><td>${r.applied ? 'acted' : r.replayed ? 'replay' : ''}</td><td>${esc(r.injected ?? '')}</td><td>${esc(r.note ?? '')}</td></tr>`
}

function requestTable(seqs: number[], bySeq: Map<number, RecordedRequest>, startMs: number, by: string): string {
  const rows = seqs.slice(0, 40).flatMap((seq) => (bySeq.has(seq) ? [requestRow(bySeq.get(seq)!, startMs)] : []))
  const bodies = seqs.slice(0, 10).flatMap((seq) => (bySeq.get(seq)?.bodyText ? [`#${seq} ${bySeq.get(seq)!.bodyText.slice(0, 600)}`] : []))
  return `<table><thead><tr><th>#</th><th>Time (${esc(by)} clock)</th><th>Request</th><th>Operation</th><th>Key</th><th>Idempotency-Key</th><th>Status</th><th>Effect</th><th>${esc(capital(by))} produced</th><th>Note</th></tr></thead><tbody>${rows.join('')}</tbody></table>${seqs.length > 40 ? `<p class="meta">… ${seqs.length - 40} more in report.json</p>` : ''}${bodies.length ? `<h5>Bodies</h5><pre>${esc(bodies.join('\n'))}</pre>` : ''}`
}

function ruleSection(o: ClientRuleOutcome, bySeq: Map<number, RecordedRequest>, startMs: number, by: string): string {
  const failed = o.status === 'fail' && o.level === 'MUST'
  const label = o.status === 'fail' ? (o.level === 'MUST' ? 'FAIL' : 'warning') : o.status
  const cls = o.status === 'pass' ? 'pass' : o.status === 'not exercised' || o.status === 'not applicable' ? 'skip' : failed ? 'fail' : 'warn'
  const findings = o.failures.map((f) => `<div class="finding ${failed ? 'failure' : 'warning'}"><p>${esc(f.message)}</p><table class="kv"><tr><th>Expected</th><td><code>${esc(f.expected)}</code></td></tr><tr><th>Received</th><td><code>${esc(f.received)}</code></td></tr></table>${f.requests.length ? `<details${failed ? ' open' : ''}><summary>The requests: #${esc(f.requests.slice(0, 12).join(', #'))}${f.requests.length > 12 ? ' …' : ''}</summary>${requestTable(f.requests, bySeq, startMs, by)}</details>` : ''}</div>`).join('')
  const evidence = o.evidence.length ? `<details class="evidence"><summary>Evidence: ${o.evidence.length} request${o.evidence.length > 1 ? 's' : ''} behind this outcome</summary>${requestTable(o.evidence, bySeq, startMs, by)}</details>` : ''
  return `<section id="${esc(anchor(o.id))}" class="rule"><details${failed ? ' open' : ''}><summary><span class="${cls}">${esc(label)}</span> <code>${esc(o.id)}</code> — ${esc(o.title)}</summary>
<p class="meta">${esc(levelLabel(o))} · spec: ${esc(o.spec)} · applies to ${esc(o.scope)}${o.reason ? ` · ${esc(o.status)}: ${esc(o.reason)}` : ''}</p>${provenanceBlock(o)}${findings}${evidence}</details></section>`
}

export function clientHtml(report: ClientReport, { by, gradedOn, producedIntro }: ClientPageSetting = CERTIFY_CLIENT_PAGE): string {
  const s = report.summary
  const bySeq = new Map(report.requests.map((r) => [r.seq, r]))
  const startMs = Date.parse(report.startedAt)
  const areas = [...new Set(report.outcomes.map((o) => o.area))]
  const byArea = areas.map((area) => {
    const rows = report.outcomes.filter((o) => o.area === area)
    return `<h3 id="area-${esc(area)}">${esc(area)}</h3><table><thead><tr><th>Rule</th><th>Behaviour</th><th>Level</th><th>Spec section</th><th>Outcome</th></tr></thead><tbody>${rows.map((o) => `<tr><td><a href="#${esc(anchor(o.id))}"><code>${esc(o.id)}</code></a></td><td>${esc(o.title)}</td><td>${esc(levelLabel(o))}</td><td>${esc(o.spec)}</td><td class="${o.status === 'pass' ? 'pass' : o.status === 'not exercised' || o.status === 'not applicable' ? 'skip' : o.level === 'MUST' ? 'fail' : 'warn'}">${esc(o.status === 'fail' && o.level === 'SHOULD' ? 'warning' : o.status)}</td></tr>`).join('')}</tbody></table>${rows.map((o) => ruleSection(o, bySeq, startMs, by)).join('')}`
  }).join('')
  const situations = Object.entries(report.situations).map(([what, seqs]) => `<tr><td>${esc(what)}</td><td>${seqs.map((q) => `#${q}`).join(', ')}</td></tr>`).join('')
  const [head, ...rest] = report.verdictText.split(': ')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(head)} — client certification</title>
<style>
${CERTIFICATE_STYLE}</style></head><body>
<h1>Client certification report</h1>
<p class="meta">${esc(report.contractTitle)} — a client of the service, graded by ${esc(report.tool)} on ${esc(gradedOn)}</p>
<div class="badge ${VERDICT_CLASS[report.verdict]}" role="status"><b>${esc(head)}</b><span>${esc(rest.join(': '))}</span></div>
<dl class="facts"><dt>Command</dt><dd><code>${esc(report.commandLine ?? '(run from code)')}</code></dd>
<dt>Profile</dt><dd>${esc(report.profile)} (seed ${report.seed}: the same seed produces the same situations on the same requests)</dd>
<dt>Started</dt><dd>${esc(report.startedAt)} (${esc(by)} clock)</dd><dt>Finished</dt><dd>${esc(report.finishedAt)}</dd>
<dt>Contract</dt><dd>${esc(report.contractTitle)}, version ${esc(report.contractVersion)} (OpenAPI 3.1), SHA-256 <code>${esc(report.contractSha256)}</code></dd>
<dt>Requests</dt><dd>${s.requests}</dd>
<dt>Result</dt><dd>${s.passed} passed, ${s.failed} failed, ${s.notExercised} not exercised, ${s.notApplicable} not applicable; ${s.mustFailed} MUST rule(s) not met, ${s.shouldFailed} SHOULD rule(s) not met</dd>
<dt>Operations</dt><dd><a href="#operations">${report.operations.length} called</a>${report.missingOperations.length ? `; <b class="fail">required and not called: ${esc(report.missingOperations.join(', '))}</b>` : ''}</dd>
<dt>Credentials</dt><dd>API keys never appear: each is shown by a short id (<code>key-…</code>, a hash prefix).</dd></dl>
${report.runErrors.length ? `<h2>Run errors</h2><pre>${esc(report.runErrors.join('\n'))}</pre>` : ''}
<h2>What the ${esc(by)} produced</h2><p>${producedIntro}</p>
<table><thead><tr><th>Situation</th><th>Requests</th></tr></thead><tbody>${situations || '<tr><td colspan="2">none</td></tr>'}</tbody></table>
<h2 id="operations">Operations the certificate covers</h2><p>The client is certified for what it does: the operations it called. Rules about requests it never made are "not applicable"; a rule about a request it made whose situation never arose is "not exercised" and withholds the certificate.</p>
<table><thead><tr><th>Operation</th></tr></thead><tbody>${report.operations.map((op) => `<tr><td><code>${esc(op)}</code></td></tr>`).join('') || '<tr><td>none</td></tr>'}</tbody></table>
<h2>Rules by area</h2>
<p>MUST rules enforce what the service documentation states, in its words (quoted under each rule); SHOULD rules are its guidance or our inference where it is silent, marked "inferred" with why (a SHOULD rule not met is a warning, not a failed certification).</p>
${byArea}
<p class="meta">Generated by ${esc(report.tool)}.</p>
</body></html>
`
}
