/**
 * The certification report a partner attaches to a ticket: one self-contained HTML file (inline
 * style, no script, no external resource) with the target, the date, the contract version, a
 * pass/fail table by area with each rule's spec section, the operations exercised, and for every
 * failure the request, the response excerpt, what was expected and a curl command to reproduce it.
 */
import type { RunReport } from '../report.ts'
import type { Exchange, Failure, RuleOutcome } from '../types.ts'

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

const STATUS_LABEL: Record<RuleOutcome['status'], string> = { pass: 'pass', fail: 'FAIL', error: 'ERROR', skip: 'skipped' }

function statusCell(o: RuleOutcome): string {
  const warnOnly = o.level === 'SHOULD' && (o.status === 'fail' || o.status === 'error')
  const cls = o.status === 'pass' ? 'pass' : o.status === 'skip' ? 'skip' : warnOnly ? 'warn' : 'fail'
  return `<td class="${cls}">${esc(warnOnly ? 'warning' : STATUS_LABEL[o.status])}${o.warnings.length ? ` <small>(${o.warnings.length} warning${o.warnings.length > 1 ? 's' : ''})</small>` : ''}</td>`
}

function exchangeBlock(e: Exchange): string {
  const headers = Object.entries(e.requestHeaders).map(([k, v]) => `${k}: ${v}`).join('\n')
  return `<details open><summary>Request #${e.seq}: ${esc(e.method)} ${esc(e.url)} → HTTP ${e.status} (${e.durationMs} ms)</summary>
<div class="grid"><div><h5>Request</h5><pre>${esc(`${e.method} ${e.url}\n${headers}${e.requestBody !== undefined ? `\n\n${e.requestBody}` : ''}`)}</pre></div>
<div><h5>Response excerpt</h5><pre>${esc(`HTTP ${e.status}\ncontent-type: ${e.responseHeaders['content-type'] ?? ''}\n\n${e.responseExcerpt}`)}</pre></div></div>
<h5>Reproduce</h5><pre class="curl">${esc(e.curl)}</pre></details>`
}

function failureBlock(f: Failure, kind: 'failure' | 'warning'): string {
  return `<div class="finding ${kind}"><p><b>${esc(f.operation ?? '')}</b> ${esc(f.message)}</p>
<table class="kv"><tr><th>Expected</th><td><code>${esc(f.expected)}</code></td></tr><tr><th>Received</th><td><code>${esc(f.received)}</code></td></tr></table>
${f.exchange ? exchangeBlock(f.exchange) : ''}</div>`
}

export function htmlReport(report: RunReport): string {
  const s = report.summary
  const areas = [...new Set(report.outcomes.map((o) => o.area))]
  const byArea = areas
    .map((area) => {
      const rows = report.outcomes.filter((o) => o.area === area)
      const passed = rows.filter((o) => o.status === 'pass').length
      return `<tr class="area"><th colspan="7">${esc(area)} <small>${passed}/${rows.length} passed</small></th></tr>` +
        rows.map((o) => `<tr><td><a href="#${esc(o.id)}"><code>${esc(o.id)}</code></a></td><td>${esc(o.title)}</td><td>${esc(o.level)}</td><td>${esc(o.spec)}</td><td>${o.writes ? 'writes' : 'reads'}</td>${statusCell(o)}<td>${esc(o.operations.length)}</td></tr>`).join('')
    })
    .join('')
  const details = report.outcomes
    .filter((o) => o.status !== 'pass' || o.warnings.length)
    .map((o) => `<section id="${esc(o.id)}"><h3><code>${esc(o.id)}</code> — ${esc(o.title)}</h3>
<p class="meta">${esc(o.level)} · spec: ${esc(o.spec)} · ${o.writes ? 'writes' : 'reads'} · ${esc(STATUS_LABEL[o.status])}${o.reason ? ` · ${esc(o.reason)}` : ''}</p>
${o.failures.map((f) => failureBlock(f, o.level === 'MUST' ? 'failure' : 'warning')).join('')}
${o.warnings.map((f) => failureBlock(f, 'warning')).join('')}</section>`)
    .join('')
  const coverage = report.coverage
    .map((c) => `<tr class="${c.exercisedBy.length ? '' : 'uncovered'}"><td><code>${esc(c.permission)}</code></td><td>${esc(c.operationId)}</td><td>${esc(c.tag)}</td><td>${c.inferred ? 'inferred' : ''}</td><td>${c.exercisedBy.length ? c.exercisedBy.map((r) => `<code>${esc(r)}</code>`).join(' ') : '<b>not exercised</b>'}</td></tr>`)
    .join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance certification — ${esc(report.target)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d2430}
h1{margin-bottom:.2rem}table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border-bottom:1px solid #e3e6eb;padding:.35rem .5rem;text-align:left;vertical-align:top}
tr.area th{background:#f3f5f8;font-size:1rem}.pass{color:#126b2f;font-weight:600}.fail{color:#b3261e;font-weight:700}.warn{color:#8a5a00;font-weight:600}.skip{color:#6b7280}
.verdict{display:inline-block;padding:.3rem .8rem;border-radius:4px;font-weight:700;color:#fff}.certified{background:#126b2f}.not-certified{background:#b3261e}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;white-space:pre-wrap;word-break:break-all;font-size:12px;max-height:24rem}.curl{background:#eef2ff}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:.8rem}.finding{border-left:4px solid #b3261e;padding:.2rem .8rem;margin:.8rem 0}.finding.warning{border-color:#d69e00}
.kv th{width:7rem;color:#555}.kv code{white-space:pre-wrap;word-break:break-all}.meta{color:#555}tr.uncovered td{background:#fff4f4}dl.facts{display:grid;grid-template-columns:12rem 1fr;gap:.2rem .8rem}dl.facts dt{color:#555}
</style></head><body>
<h1>Conformance certification report</h1>
<p><span class="verdict ${report.verdict === 'certified' ? 'certified' : 'not-certified'}">${esc(report.verdict.toUpperCase())}</span></p>
<dl class="facts"><dt>Target</dt><dd><code>${esc(report.target)}</code></dd><dt>Shop</dt><dd><code>${esc(report.shopId)}</code></dd>
<dt>Date</dt><dd>${esc(report.startedAt)} – ${esc(report.finishedAt)}</dd><dt>Contract</dt><dd>${esc(report.contractTitle)}, version ${esc(report.contractVersion)} (OpenAPI 3.1)</dd>
<dt>Writes</dt><dd>${report.allowWrites ? 'allowed (resources named conformance-…, removed at the end)' : 'not allowed (read-only run; writing rules skipped)'}</dd>
<dt>Rules selected</dt><dd>${report.rulesSelected.length ? esc(report.rulesSelected.join(', ')) : 'all'}</dd>
<dt>Result</dt><dd>${s.passed} passed, ${s.failed} failed, ${s.errored} errors, ${s.skipped} skipped, ${s.warnings} warnings; ${s.mustFailed} MUST rule(s) not met, ${s.shouldFailed} SHOULD rule(s) not met</dd>
<dt>Operations exercised</dt><dd>${s.exercised} of ${s.operations}</dd>
<dt>Credentials</dt><dd>API keys are redacted everywhere in this report; the curl commands read them from <code>$API_KEY</code> (and <code>$ENTERPRISE_API_KEY</code>, <code>$LIMITED_API_KEY</code>).</dd></dl>
${report.runErrors.length ? `<h2>Run errors</h2><pre>${esc(report.runErrors.join('\n'))}</pre>` : ''}
<h2>Rules by area</h2>
<p>MUST rules come from what the service documentation states; SHOULD rules from what the contract inferred where it says "not shown" (a SHOULD rule not met is a warning, not a failed certification).</p>
<table><thead><tr><th>Rule</th><th>Behaviour</th><th>Level</th><th>Spec section</th><th>Kind</th><th>Outcome</th><th>Ops</th></tr></thead><tbody>${byArea}</tbody></table>
<h2>Failures and warnings</h2>${details || '<p>None.</p>'}
<h2>Operations exercised</h2><table><thead><tr><th>Operation</th><th>operationId</th><th>Area</th><th></th><th>Exercised by</th></tr></thead><tbody>${coverage}</tbody></table>
<p class="meta">Generated by ${esc(report.tool)}.</p>
</body></html>
`
}
