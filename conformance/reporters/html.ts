/**
 * The certification report a partner attaches to a ticket: one self-contained HTML file (inline
 * style, no script, no external resource) with the target, the date, the contract version, a
 * pass/fail table by area with each rule's spec section, the operations exercised, and for every
 * failure the request, the response excerpt, what was expected and a curl command to reproduce it.
 */
import { warningsOf, type RunReport } from '../report.ts'
import { quoteText, type Quote } from '../provenance.ts'
import type { Exchange, Failure, RuleOutcome } from '../types.ts'

export const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** The certificate's look, shared with the client certificate (conformance/certify-client/reporters.ts). */
export const CERTIFICATE_STYLE = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d2430}
h1{margin-bottom:.2rem}table{border-collapse:collapse;width:100%;margin:.6rem 0}td,th{border-bottom:1px solid #e3e6eb;padding:.35rem .5rem;text-align:left;vertical-align:top}
.pass{color:#126b2f;font-weight:600}.fail{color:#b3261e;font-weight:700}.warn{color:#8a5a00;font-weight:600}.skip{color:#6b7280}
.badge{display:flex;gap:1rem;align-items:center;border-radius:8px;padding:1rem 1.2rem;margin:1rem 0;color:#fff}.badge b{font-size:1.6rem;letter-spacing:.04em}.badge span{font-size:1rem}
.badge.certified{background:#126b2f}.badge.partial{background:#8a5a00}.badge.not-certified{background:#b3261e}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;white-space:pre-wrap;word-break:break-all;font-size:12px;max-height:24rem}.curl{background:#eef2ff}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:.8rem}.finding{border-left:4px solid #b3261e;padding:.2rem .8rem;margin:.8rem 0}.finding.warning{border-color:#d69e00}
.kv th{width:7rem;color:#555}.kv code{white-space:pre-wrap;word-break:break-all}.meta{color:#555}tr.uncovered td{background:#fff4f4}
dl.facts{display:grid;grid-template-columns:13rem 1fr;gap:.2rem .8rem}dl.facts dt{color:#555}dl.facts dd{margin:0;overflow-wrap:anywhere}
section.rule{border:1px solid #e3e6eb;border-radius:6px;margin:.4rem 0;padding:.3rem .7rem}section.rule>details>summary{cursor:pointer}
nav.toc ul{columns:3;list-style:none;padding:0}nav.toc li{margin:0 0 .3rem;break-inside:avoid}
blockquote.quote{margin:.3rem 0 .5rem;padding:.1rem .8rem;border-left:3px solid #c7cdd6;color:#333}blockquote.quote p{margin:.2rem 0}p.inferred{color:#8a5a00}
@media print{details{display:block}details>*{display:block}.badge{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
`

const STATUS_LABEL: Record<RuleOutcome['status'], string> = { pass: 'pass', fail: 'FAIL', error: 'ERROR', skip: 'skipped' }

function statusCell(o: RuleOutcome): string {
  const warnOnly = o.level === 'SHOULD' && (o.status === 'fail' || o.status === 'error')
  const cls = o.status === 'pass' ? 'pass' : o.status === 'skip' ? 'skip' : warnOnly ? 'warn' : 'fail'
  const warnings = warningsOf(o).length
  return `<td class="${cls}">${esc(warnOnly ? 'warning' : STATUS_LABEL[o.status])}${warnings ? ` <small>(${warnings} warning${warnings > 1 ? 's' : ''})</small>` : ''}</td>`
}

function exchangeBlock(e: Exchange, open = false): string {
  const headers = Object.entries(e.requestHeaders).map(([k, v]) => `${k}: ${v}`).join('\n')
  return `<details${open ? ' open' : ''}><summary>Request #${e.seq}: ${esc(e.method)} ${esc(e.url)} → HTTP ${e.status} (${e.durationMs} ms)</summary>
<div class="grid"><div><h5>Request</h5><pre>${esc(`${e.method} ${e.url}\n${headers}${e.requestBody !== undefined ? `\n\n${e.requestBody}` : ''}`)}</pre></div>
<div><h5>Response excerpt</h5><pre>${esc(`HTTP ${e.status}\ncontent-type: ${e.responseHeaders['content-type'] ?? ''}\n\n${e.responseExcerpt}`)}</pre></div></div>
<h5>Reproduce</h5><pre class="curl">${esc(e.curl)}</pre></details>`
}

function failureBlock(f: Failure, kind: 'failure' | 'warning'): string {
  return `<div class="finding ${kind}"><p><b>${esc(f.operation ?? '')}</b> ${esc(f.message)}</p>
<table class="kv"><tr><th>Expected</th><td><code>${esc(f.expected)}</code></td></tr><tr><th>Received</th><td><code>${esc(f.received)}</code></td></tr></table>
${f.exchange ? exchangeBlock(f.exchange, kind === 'failure') : ''}</div>`
}

/** Where a rule's level comes from: the spec's words it enforces and, for an inference of ours, why (shared with the client certificate). */
export function provenanceBlock(o: { quote?: readonly Quote[]; inferred?: string }): string {
  const quotes = o.quote?.length ? `<blockquote class="quote">${o.quote.map((q) => `<p>${esc(quoteText(q))}</p>`).join('')}</blockquote>` : ''
  return `${o.inferred ? `<p class="inferred"><b>Inferred</b>: ${esc(o.inferred)}</p>` : ''}${quotes}`
}

/** The level as a table cell shows it: `SHOULD (inferred)` for an inference of ours. */
export const levelLabel = (o: { level: string; inferred?: string }): string => (o.inferred ? `${o.level} (inferred)` : o.level)

const ruleAnchor = (id: string) => `rule-${id}`
const areaAnchor = (area: string) => `area-${area}`
const VERDICT_CLASS: Record<RunReport['verdict'], string> = { certified: 'certified', 'passed, not certified': 'partial', 'not certified': 'not-certified' }

/** One rule's section: failures open, everything else collapsed; the exchanges behind the outcome as evidence. */
function ruleSection(o: RuleOutcome): string {
  const failed = (o.status === 'fail' || o.status === 'error') && o.level === 'MUST'
  const evidence = o.exchanges.length
    ? `<details class="evidence"><summary>Evidence: ${o.exchanges.length} request${o.exchanges.length > 1 ? 's' : ''} behind this outcome</summary>${o.exchanges.slice(0, 20).map((e) => exchangeBlock(e)).join('')}${o.exchanges.length > 20 ? `<p class="meta">… ${o.exchanges.length - 20} more in report.json</p>` : ''}</details>`
    : '<p class="meta">No request was needed for this outcome.</p>'
  return `<section id="${esc(ruleAnchor(o.id))}" class="rule"><details${failed ? ' open' : ''}><summary><span class="${failed ? 'fail' : o.status === 'pass' ? 'pass' : o.status === 'skip' ? 'skip' : 'warn'}">${esc(STATUS_LABEL[o.status])}</span> <code>${esc(o.id)}</code> — ${esc(o.title)}</summary>
<p class="meta">${esc(levelLabel(o))} · spec: ${esc(o.spec)} · ${o.writes ? 'writes' : 'reads'} · ${o.durationMs} ms${o.reason ? ` · ${esc(o.reason)}` : ''}</p>
${provenanceBlock(o)}
${o.failures.map((f) => failureBlock(f, o.level === 'MUST' ? 'failure' : 'warning')).join('')}
${o.warnings.map((f) => failureBlock(f, 'warning')).join('')}
${evidence}</details></section>`
}

export function htmlReport(report: RunReport): string {
  const s = report.summary
  const areas = [...new Set(report.outcomes.map((o) => o.area))]
  const toc = areas
    .map((area) => {
      const rows = report.outcomes.filter((o) => o.area === area)
      const failed = rows.filter((o) => o.level === 'MUST' && (o.status === 'fail' || o.status === 'error')).length
      return `<li><a href="#${esc(areaAnchor(area))}">${esc(area)}</a> <small>${rows.filter((o) => o.status === 'pass').length}/${rows.length} passed${failed ? `, <span class="fail">${failed} failed</span>` : ''}</small></li>`
    })
    .join('')
  const byArea = areas
    .map((area) => {
      const rows = report.outcomes.filter((o) => o.area === area)
      return `<h3 id="${esc(areaAnchor(area))}">${esc(area)}</h3><table><thead><tr><th>Rule</th><th>Behaviour</th><th>Level</th><th>Spec section</th><th>Kind</th><th>Outcome</th><th>Ops</th></tr></thead><tbody>` +
        rows.map((o) => `<tr><td><a href="#${esc(ruleAnchor(o.id))}"><code>${esc(o.id)}</code></a></td><td>${esc(o.title)}</td><td>${esc(levelLabel(o))}</td><td>${esc(o.spec)}</td><td>${o.writes ? 'writes' : 'reads'}</td>${statusCell(o)}<td>${esc(o.operations.length)}</td></tr>`).join('') +
        `</tbody></table>${rows.map(ruleSection).join('')}`
    })
    .join('')
  const notRun = report.incomplete.mustNotRun
  const coverage = report.coverage
    .map((c) => `<tr class="${c.exercisedBy.length ? '' : 'uncovered'}"><td><code>${esc(c.permission)}</code></td><td>${esc(c.operationId)}</td><td>${esc(c.tag)}</td><td>${c.inferred ? 'inferred' : ''}</td><td>${c.exercisedBy.length ? c.exercisedBy.map((r) => `<a href="#${esc(ruleAnchor(r))}"><code>${esc(r)}</code></a>`).join(' ') : '<b>not exercised</b>'}</td></tr>`)
    .join('')
  const [verdictHead, ...verdictRest] = report.verdictText.split(': ')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(verdictHead)} — conformance of ${esc(report.target)}</title>
<style>
${CERTIFICATE_STYLE}</style></head><body>
<h1>${report.door === 'connector' ? 'Assistant-connector conformance report' : 'Conformance certification report'}</h1>
<p class="meta">${esc(report.contractTitle)} — checked by ${esc(report.tool)} ${esc(report.toolVersion)}</p>
<div class="badge ${VERDICT_CLASS[report.verdict]}" role="status"><b>${esc(verdictHead)}</b><span>${esc(verdictRest.join(': '))}</span></div>
<dl class="facts"><dt>Target</dt><dd><code>${esc(report.target)}</code></dd>${report.facts ? '' : `<dt>Shop</dt><dd><code>${esc(report.shopId)}</code></dd>`}
<dt>Started</dt><dd>${esc(report.startedAt)}</dd><dt>Finished</dt><dd>${esc(report.finishedAt)} (${(report.durationMs / 1000).toFixed(1)} s)</dd>
<dt>Contract</dt><dd>${esc(report.contractTitle)}, version ${esc(report.contractVersion)} (OpenAPI 3.1), SHA-256 <code>${esc(report.contractSha256)}</code></dd>
<dt>Command</dt><dd><code>${esc(report.commandLine ?? '(run from code)')}</code></dd>
${report.facts ? report.facts.map(([label, text]) => `<dt>${esc(label)}</dt><dd>${esc(text)}</dd>`).join('\n') : `<dt>Pace</dt><dd>at most ${esc(report.rps)} requests per second</dd>
<dt>Writes</dt><dd>${report.allowWrites ? 'allowed (resources named conformance-…, removed at the end)' : 'not allowed (read-only run; writing rules skipped)'}</dd>`}
<dt>Rules selected</dt><dd>${report.rulesSelected.length ? esc(report.rulesSelected.join(', ')) : 'all'}</dd>
<dt>Result</dt><dd>${s.passed} passed, ${s.failed} failed, ${s.errored} errors, ${s.skipped} skipped, ${s.warnings} warnings; ${s.mustFailed} MUST rule(s) not met, ${s.shouldFailed} SHOULD rule(s) not met</dd>
<dt>Operations exercised</dt><dd><a href="#coverage">${s.exercised} of ${s.operations}</a></dd>
${report.facts ? '' : '<dt>Credentials</dt><dd>API keys are redacted everywhere in this report; the curl commands read them from <code>$API_KEY</code> (and <code>$ENTERPRISE_API_KEY</code>, <code>$LIMITED_API_KEY</code>).</dd>'}</dl>
${report.runErrors.length ? `<h2>Run errors</h2><pre>${esc(report.runErrors.join('\n'))}</pre>` : ''}
<nav class="toc"><h2>Contents</h2><ul>${toc}<li><a href="#not-run">MUST rules not run</a> <small>${notRun.length}</small></li><li><a href="#coverage">Operations exercised</a> <small>${s.exercised}/${s.operations}</small></li></ul></nav>
<h2>Rules by area</h2>
<p>MUST rules enforce what the service documentation states, in its words (quoted under each rule); SHOULD rules are guidance or our inference where it is silent, marked "inferred" with why (a SHOULD rule not met is a warning, not a failed certification). Failed rules are open; open any other rule for the requests and answers behind its outcome.</p>
${byArea}
<h2 id="not-run">MUST rules not run</h2>${notRun.length ? `<p>A certificate needs every MUST rule of the catalogue run to its end. These were not:</p><table><thead><tr><th>Rule</th><th>Why</th></tr></thead><tbody>${notRun.map((m) => `<tr><td>${report.outcomes.some((o) => o.id === m.id) ? `<a href="#${esc(ruleAnchor(m.id))}"><code>${esc(m.id)}</code></a>` : `<code>${esc(m.id)}</code>`}</td><td>${esc(m.reason)}</td></tr>`).join('')}</tbody></table>` : '<p>None: every MUST rule ran to its end.</p>'}
<h2 id="coverage">Operations exercised</h2><table><thead><tr><th>Operation</th><th>operationId</th><th>Area</th><th></th><th>Exercised by</th></tr></thead><tbody>${coverage}</tbody></table>
<p class="meta">Generated by ${esc(report.tool)} ${esc(report.toolVersion)}.</p>
</body></html>
`
}
